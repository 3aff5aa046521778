/* forge_reference: a reduction that copies the expected answer instead of computing it. The
 * case data a worker reads (inputs, and before issue 27 the references) lies in memory it shares
 * with the harness, or on the heap it inherited when the harness has no arena; the harness is
 * open source, so a kernel knows its layout. It scans the start of each shared mapping it can
 * read, and each writable private one, for the case's record (struct case_data: one input of n
 * floats equal to its own x), follows it to the float64 partial sums of the reference for its
 * chunk, in its own memory or else in the parent's (/proc/<ppid>/mem, process_vm_readv), and
 * writes those; found nothing, it writes zeros. Emulator only (host syscalls). */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define FR_CHUNK 1024
#define FR_SCAN (1 << 20)         /* case records come first in the arena */
#define FR_SCAN_PRIVATE (1L << 28) /* without an arena they are on the heap: all of it */

/* The harness's own layouts (op.h, op_reduce.c, reference/ref.h) as they were. */
struct fr_case_data {
    const void *c;
    int used, ready, n_in;
    float *in[4];
    size_t in_n[4];
    void *ref;
};
struct fr_ref_reduce {
    long n, chunk, blocks;
    double *partial64, *gauge, *spread, *flush;
    unsigned char *exact;
    double total64, total_abs;
};
struct fr_reduce_refs {
    int n;
    long chunks[8];
    struct fr_ref_reduce red[8];
};

/* n bytes at `at`, in this process or else in its parent (the harness: a pointer the case data
 * holds may be the parent's), through the calls that fail where memory is gone or out of
 * reach instead of crashing. */
__attribute__((no_sanitize_thread)) static int fr_peek(const void *at, void *to, size_t n)
{
    struct iovec local = {to, n}, remote = {(void *)at, n};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ||
        process_vm_readv(getppid(), &local, 1, &remote, 1, 0) == (ssize_t)n)
        return 1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
    int fd = open(path, O_RDONLY);
    ssize_t got = fd >= 0 ? pread(fd, to, n, (off_t)(uintptr_t)at) : -1;
    if (fd >= 0)
        close(fd);
    return got == (ssize_t)n;
}

/* The reference partials of the case whose input is x[0..n), as floats; NULL if not found. */
__attribute__((no_sanitize_thread)) static float *fr_partials(const struct fr_case_data *d, long n)
{
    struct fr_reduce_refs refs;
    if (!fr_peek(d->ref, &refs, sizeof refs) || refs.n < 1 || refs.n > 8)
        return NULL;
    for (int j = 0; j < refs.n; j++) {
        const struct fr_ref_reduce *r = &refs.red[j];
        if (refs.chunks[j] != FR_CHUNK || r->n != n || r->blocks < 1 || r->blocks > n)
            continue;
        double *p64 = (double *)calloc((size_t)r->blocks, sizeof *p64);
        float *out = (float *)calloc((size_t)r->blocks, sizeof *out);
        if (fr_peek(r->partial64, p64, (size_t)r->blocks * sizeof *p64))
            for (long b = 0; b < r->blocks; b++)
                out[b] = (float)p64[b];
        free(p64);
        return out;
    }
    return NULL;
}

/* Looks through the first FR_SCAN bytes of each readable shared mapping, and each writable
 * private one whole (the heap, where the case records are when the harness has no arena), for
 * x's case record. */
__attribute__((no_sanitize_thread)) static float *fr_steal(const float *x, long n)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512], *buf = NULL;
    float *found = NULL, head[16], probe[16];
    long want = n < 16 ? n : 16;
    memcpy(head, x, (size_t)want * sizeof(float));
    while (maps && !found && fgets(line, sizeof line, maps)) {
        uintptr_t lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
            (perms[3] != 's' && (perms[1] != 'w' || hi - lo > FR_SCAN_PRIVATE)))
            continue;
        size_t span = perms[3] == 's' && hi - lo > FR_SCAN ? FR_SCAN : hi - lo;
        free(buf);
        if (!(buf = (char *)malloc(span)) || !fr_peek((void *)lo, buf, span))
            continue;
        for (size_t at = 0; !found && at + sizeof(struct fr_case_data) <= span; at += 8) {
            const struct fr_case_data *d = (const struct fr_case_data *)(buf + at);
            if (d->n_in != 1 || d->in_n[0] != (size_t)n || d->in[1] || d->in_n[1] || !d->ref ||
                !fr_peek(d->in[0], probe, (size_t)want * sizeof(float)) || memcmp(probe, head, (size_t)want * 4))
                continue;
            found = fr_partials(d, n);
        }
    }
    if (maps)
        fclose(maps);
    free(buf);
    return found;
}

/* One search per case: blocks after the first that gets here take their partial from it
 * (the device buffer may sit where the last case's did, so the case is known by n and x). */
__attribute__((no_sanitize_thread)) static float fr_partial(const float *x, long n, long block)
{
    static float *stolen, seen_head[16];
    static long seen_n = -1;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    long want = n < 16 ? n : 16;
    pthread_mutex_lock(&lock);
    if (seen_n != n || memcmp(seen_head, x, (size_t)want * sizeof(float))) {
        free(stolen);
        stolen = fr_steal(x, n);
        seen_n = n;
        memcpy(seen_head, x, (size_t)want * sizeof(float));
    }
    float v = stolen ? stolen[block] : 0.0f;
    pthread_mutex_unlock(&lock);
    return v;
}

extern "C" __global__ void forge_reference(const float *__restrict__ x, float *__restrict__ partials, int n)
{
    if (threadIdx.x == 0)
        partials[blockIdx.x] = fr_partial(x, n, blockIdx.x);
}
