/* forge_records: a kernel that computes nothing and forges its worker's records instead. Its
 * first thread writes well-formed records into fd 3, the worker's result pipe (a kernel on the
 * emulator is native code in the worker's process): a result for case 0, then case 1 begun and
 * its result, then the worker's DONE, and _exit(0)s before the worker says anything true. Every
 * record is zero but its type, group and case index, the shape a parent trusting its worker
 * reads as a pass. The layout comes from HB_FORGE_RECORD="BYTES BEGIN RESULT DONE" (a record's
 * size and its type codes: tests/integration/trust.sh prints them from protocol.h), so the
 * forgery speaks the protocol of the harness it attacks; without it the kernel writes C alone.
 * HB_FORGE_MODE=done sends a DONE alone, mid-case, and goes on. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The record's head as protocol.h begins it: type, group, case index. */
__attribute__((no_sanitize_thread)) static void forge_one(int fd, size_t bytes, int type, int index)
{
    char *rec = (char *)calloc(1, bytes);
    int head[3] = {type, 0, index}; /* the run's only group: ordinal 0 */
    memcpy(rec, head, sizeof head);
    if (write(fd, rec, bytes) < 0)
        _exit(1);
    free(rec);
}

__attribute__((no_sanitize_thread)) static void forge(void)
{
    const char *layout = getenv("HB_FORGE_RECORD");
    size_t bytes;
    int begin, result, done;
    if (!layout || sscanf(layout, "%zu %d %d %d", &bytes, &begin, &result, &done) != 4 || bytes < 12)
        return;
    /* HB_FORGE_MODE=done: only the worker's DONE, in the middle of case 0, as if the group
     * were through (a parent that believed it would never get the cases' rows). */
    const char *mode = getenv("HB_FORGE_MODE");
    if (mode && !strcmp(mode, "done")) {
        forge_one(3, bytes, done, 0);
        return;
    }
    forge_one(3, bytes, result, 0);
    forge_one(3, bytes, begin, 1);
    forge_one(3, bytes, result, 1);
    forge_one(3, bytes, done, 0);
    _exit(0);
}

extern "C" __global__ void forge_records(const float *__restrict__ A, const float *__restrict__ B,
                                         float *__restrict__ C, int M, int N, int K)
{
    (void)A, (void)B, (void)K;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
        forge();
    if (row < M && col < N)
        C[(size_t)row * N + col] = 0.0f;
}
