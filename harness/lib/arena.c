/* arena.c: see arena.h. */
#include "arena.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util.h"

#define ARENA_ALIGN 64 /* a cache line: threads filling neighbouring blocks do not share one */

static char *base;
static size_t cap;
static atomic_size_t used;
static atomic_int sealed;

int arena_open(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    base = p, cap = bytes;
    atomic_store(&used, 0);
    atomic_store(&sealed, 0);
    return 0;
}

static int arena_owns(const void *p) { return base && (const char *)p >= base && (const char *)p < base + cap; }

void *arena_calloc(size_t n, size_t size)
{
    if (base && !atomic_load(&sealed) && size && n <= SIZE_MAX / size) {
        size_t want = (n * size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        size_t at = atomic_fetch_add(&used, want ? want : ARENA_ALIGN);
        if (at <= cap && want <= cap - at)
            return base + at; /* fresh pages of an anonymous mapping read as zero */
        fprintf(stderr, "harness: out of memory for case data (the %.1f GiB shared with workers are used up)\n",
                (double)cap / 1073741824.0);
        exit(2);
    }
    return xcalloc(n ? n : 1, size ? size : 1);
}

void arena_free(void *p)
{
    if (!arena_owns(p))
        free(p);
}

void arena_seal(void) { atomic_store(&sealed, 1); }

void arena_protect(void)
{
    if (base)
        mprotect(base, cap, PROT_READ);
}

void arena_close(void)
{
    if (base)
        munmap(base, cap);
    base = NULL, cap = 0;
}
