/* SPDX-License-Identifier: MIT */
/* arena.c: see arena.h. A child gets the shared region read-only in a fork handler, before
 * fork() returns in it and so before any kernel is loaded: mprotect alone could be undone by
 * the kernel's code, a read-only mapping of a file sealed with F_SEAL_FUTURE_WRITE cannot. */
#include "arena.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util.h"

#define ARENA_ALIGN 64 /* a cache line: threads filling neighbouring blocks do not share one */

struct arena_region {
    char *base;
    size_t cap;
    atomic_size_t used;
};

static struct arena_region shared, own;
static int shared_fd = -1; /* the sealed file behind `shared`, open in the parent only */
static atomic_int sealed;

/* This process's own memory past the own region (none reserved, or sealed: a shrink's
 * trials): one mapping per allocation, none inherited by a child, each listed until freed. */
struct arena_chunk {
    char *base;
    size_t bytes;
    struct arena_chunk *next;
};
static struct arena_chunk *chunks;
static pthread_mutex_t chunks_lock = PTHREAD_MUTEX_INITIALIZER;

/* In every child, the moment it exists: the shared region mapped again from its file,
 * read-only at the same address (pointers into it stay valid), and the file closed; `own` is
 * not there at all. A child that cannot have it read-only does not run. */
static void arena_in_child(void)
{
    if (shared_fd < 0)
        return;
    if (mmap(shared.base, shared.cap, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, shared_fd, 0) == MAP_FAILED)
        _exit(127);
    close(shared_fd);
    shared_fd = -1;
}

static int child_handler = -1; /* pthread_atfork's answer: 0 once arena_in_child is in place */
static void arena_register_child(void) { child_handler = pthread_atfork(NULL, NULL, arena_in_child); }

static int arena_map_shared(size_t bytes)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    shared_fd = memfd_create("hb-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (shared_fd < 0 || ftruncate(shared_fd, (off_t)bytes))
        return -1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, shared_fd, 0);
    if (p == MAP_FAILED)
        return -1;
    shared.base = p, shared.cap = bytes;
    /* This mapping stays writable; any made after the seal, a child's included, cannot be. */
    if (fcntl(shared_fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
        return -1;
    return pthread_once(&once, arena_register_child) || child_handler ? -1 : 0;
}

static int arena_map_own(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    own.base = p, own.cap = bytes;
    return madvise(p, bytes, MADV_DONTFORK);
}

/* The file size limit (ulimit -f) bounds the shared region's memory file too: a file that large
 * could not be made (the kernel sends SIGXFSZ, or says EFBIG where that is ignored). The run
 * then goes without an arena, which needs no file: said once, with the limit. */
static int arena_file_fits(size_t bytes)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || (rlim_t)bytes <= lim.rlim_cur)
        return 1;
    fprintf(stderr,
            "harness: the file size limit (ulimit -f: %llu KiB) is below the %.1f GiB of address space the case "
            "data's shared memory file takes: the run goes without it (workers start once all case data is made)\n",
            (unsigned long long)(lim.rlim_cur / 1024), (double)bytes / 1073741824.0);
    return 0;
}

int arena_open(size_t bytes)
{
    if (!arena_file_fits(bytes))
        return -1;
    atomic_store(&shared.used, 0);
    atomic_store(&own.used, 0);
    atomic_store(&sealed, 0);
    if (arena_map_shared(bytes) || arena_map_own(bytes)) {
        arena_close();
        return -1;
    }
    return 0;
}

static int arena_owns(const struct arena_region *r, const void *p)
{
    return r->base && (const char *)p >= r->base && (const char *)p < r->base + r->cap;
}

static void *arena_take(struct arena_region *r, size_t n, size_t size)
{
    if (r->base && !atomic_load(&sealed) && size && n <= SIZE_MAX / size) {
        size_t want = (n * size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        size_t at = atomic_fetch_add(&r->used, want ? want : ARENA_ALIGN);
        if (at <= r->cap && want <= r->cap - at)
            return r->base + at; /* fresh pages of an anonymous mapping or a new file read as zero */
        fprintf(stderr, "harness: out of memory for case data (the %.1f GiB of a region are used up)\n",
                (double)r->cap / 1073741824.0);
        exit(2);
    }
    return xcalloc(n ? n : 1, size ? size : 1);
}

/* Zeroed memory of n * size bytes in a mapping of its own that no child inherits; exits 2,
 * as a full region does, when the system has none. */
static void *arena_own_chunk(size_t n, size_t size)
{
    size_t bytes = size && n <= (SIZE_MAX - 4096) / size ? n * size : 0;
    void *p = bytes ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    struct arena_chunk *c = p != MAP_FAILED && madvise(p, bytes, MADV_DONTFORK) == 0 ? malloc(sizeof *c) : NULL;
    if (!c) {
        fprintf(stderr, "harness: out of memory for references (%zu bytes in memory no worker inherits)\n", bytes);
        exit(2);
    }
    c->base = p, c->bytes = bytes;
    pthread_mutex_lock(&chunks_lock);
    c->next = chunks, chunks = c;
    pthread_mutex_unlock(&chunks_lock);
    return p;
}

/* Unmaps p's chunk: 1, or 0 when p is no chunk's. */
static int arena_free_chunk(void *p)
{
    pthread_mutex_lock(&chunks_lock);
    struct arena_chunk **at = &chunks;
    while (*at && (*at)->base != p)
        at = &(*at)->next;
    struct arena_chunk *c = *at;
    if (c)
        *at = c->next;
    pthread_mutex_unlock(&chunks_lock);
    if (c)
        munmap(c->base, c->bytes), free(c);
    return c != NULL;
}

void *arena_calloc(size_t n, size_t size) { return arena_take(&shared, n, size); }

void *arena_calloc_own(size_t n, size_t size)
{
    if (own.base && !atomic_load(&sealed))
        return arena_take(&own, n, size);
    return arena_own_chunk(n ? n : 1, size ? size : 1);
}

void arena_free(void *p)
{
    if (p && !arena_owns(&shared, p) && !arena_owns(&own, p) && !arena_free_chunk(p))
        free(p);
}

void arena_seal(void) { atomic_store(&sealed, 1); }

void arena_close(void)
{
    struct arena_region *regions[2] = {&shared, &own};
    for (int i = 0; i < 2; i++) {
        if (regions[i]->base)
            munmap(regions[i]->base, regions[i]->cap);
        regions[i]->base = NULL, regions[i]->cap = 0;
    }
    if (shared_fd >= 0)
        close(shared_fd);
    shared_fd = -1;
}
