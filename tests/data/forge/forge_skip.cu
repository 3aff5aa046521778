/* forge_skip: a kernel that skips itself instead of failing. A kernel on the emulator is native
 * code in the worker's process, and its static constructors run when the emulator loads it:
 * this one's writes, into fd 3 (the worker's result pipe), the record the worker sends for a
 * kernel the emulator cannot run (GROUP, HB_UNSUPPORTED, with a reason of its own), then the
 * worker's DONE, and _exit(0)s before the worker says anything true. A parent that believed it
 * would report a SKIP, which fails no run. The layout comes from HB_FORGE_RECORD="BYTES BEGIN
 * RESULT DONE GROUP RC_OFFSET UNSUPPORTED WHY_OFFSET" (tests/data/forge/record_layout.c prints it from
 * protocol.h and backend.h); without it the kernel writes 0 into C, which fails. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor, no_sanitize_thread)) static void forge_skip_at_load(void)
{
    const char *layout = getenv("HB_FORGE_RECORD");
    size_t bytes, rc_at, why_at;
    int begin, result, done, group, unsupported;
    if (!layout ||
        sscanf(layout, "%zu %d %d %d %d %zu %d %zu", &bytes, &begin, &result, &done, &group, &rc_at, &unsupported,
               &why_at) != 8 ||
        bytes < 64 || rc_at + sizeof(int) > bytes || why_at + 64 > bytes)
        return;
    char *rec = (char *)calloc(1, bytes);
    int head[3] = {group, 0, 0}; /* type, the run's only group (ordinal 0), index */
    memcpy(rec, head, sizeof head);
    memcpy(rec + rc_at, &unsupported, sizeof unsupported);
    snprintf(rec + why_at, 64, "uses a feature the emulator does not model");
    head[0] = done;
    if (write(3, rec, bytes) < 0)
        _exit(1);
    memset(rec, 0, bytes);
    memcpy(rec, head, sizeof head);
    if (write(3, rec, bytes) < 0)
        _exit(1);
    _exit(0);
}

extern "C" __global__ void forge_skip(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                      int M, int N, int K)
{
    (void)A, (void)B, (void)K;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N)
        C[(size_t)row * N + col] = 0.0f;
}
