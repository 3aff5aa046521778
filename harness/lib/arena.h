/* arena.h: memory the run's workers share with it. Case data (inputs and references) is made
 * while the first workers open their devices and run groups, so it must land where a child
 * forked before it was written can read it: one shared anonymous mapping, allocated from by
 * bumping a pointer, never reused (it all lives until the run ends). Without an open arena,
 * or once it is sealed, allocations come from the heap. */
#ifndef HB_ARENA_H
#define HB_ARENA_H

#include <stddef.h>

/* Reserves `bytes` of address space (pages are committed as they are written). 0, or -1
 * when the system refuses (then everything comes from the heap). */
int arena_open(size_t bytes);
/* Zeroed memory for n items of `size`: from the arena while it is open (a full one is out of
 * memory: exit 2, as for references), else calloc (exits on failure, like xcalloc).
 * Thread-safe. */
void *arena_calloc(size_t n, size_t size);
/* Frees p if the heap gave it; arena memory goes with arena_close. */
void arena_free(void *p);
/* No more allocations from the arena (later ones, a shrink's trials, come from the heap and
 * are freed); what it holds stays until arena_close. */
void arena_seal(void);
/* In a worker: the arena becomes read-only to this process, so that nothing it runs (a
 * kernel's stray write on the emulator) can change the data every other worker reads. */
void arena_protect(void);
void arena_close(void);

#endif
