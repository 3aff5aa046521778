/* SPDX-License-Identifier: MIT */
/* arena.h: memory the run's workers share with it, and memory they never get. Case inputs are
 * made while the first workers open their devices and run groups, so they must land where a
 * child forked before they were written can read them: one shared mapping of a sealed memory
 * file, allocated from by bumping a pointer, never reused (it all lives until the run ends).
 * Every child of this process sees it read-only from the moment it exists, and cannot make it
 * writable again (the file is sealed against new writable mappings), so no kernel can change
 * what other workers or the parent read. References go to a second region, this process's own,
 * that no child inherits (MADV_DONTFORK): a worker has no copy to read. Without an open arena,
 * or once it is sealed, shared allocations come from the heap, which children inherit as the
 * copy fork gives them, and own ones from mappings of their own, which no child inherits
 * either. */
#ifndef HB_ARENA_H
#define HB_ARENA_H

#include <stddef.h>

/* Reserves `bytes` of address space for each region (pages are committed as they are
 * written). 0, or -1 when the system refuses, or the file size limit (RLIMIT_FSIZE) is below
 * `bytes` (said on stderr): then everything comes from the heap. */
int arena_open(size_t bytes);
/* Zeroed memory for n items of `size`, from the shared region while it is open (a full one is
 * out of memory: exit 2, as for references), else calloc (exits on failure, like xcalloc).
 * Thread-safe. arena_calloc_own: the same from this process's own region, which no child has,
 * or else from a mapping of its own that no child has (references never lie where a worker
 * could read them). */
void *arena_calloc(size_t n, size_t size);
void *arena_calloc_own(size_t n, size_t size);
/* Frees p if the heap gave it; arena memory goes with arena_close. */
void arena_free(void *p);
/* No more allocations from the arena (later ones, a shrink's trials, come from the heap or
 * their own mappings and are freed); what it holds stays until arena_close. */
void arena_seal(void);
void arena_close(void);

#endif
