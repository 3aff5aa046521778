/* canary_scan32.cu: known-bad reduce (pattern 3), the CUDA original of hip/canary_scan32:
 * stream compaction whose offsets come from an inclusive count scan meant for groups of 32
 * lanes, written with __shfl_up_sync and no width and guarded by the hardware lane. Right on
 * 32-lane warps; ported to wave64 (the emulator's port check at width 64) the upper group's
 * counts reach into the lower half, its lanes all claim the last slot, and every block
 * partial is deterministically short; narrower warps never finish the group's scan. Reduce
 * ABI, 256 threads, chunk 1024. */
#include <cuda_runtime.h>

#define NTHREADS 256
#define CHUNK 1024
#define GROUP 32

extern "C" __global__ void canary_scan32(const float *x, float *partials, int n)
{
    __shared__ float slots[NTHREADS];
    __shared__ int counts[NTHREADS / GROUP];
    const int tid = threadIdx.x, group = tid / GROUP;
    const int lane = tid % warpSize; /* BUG: the guard below wants the lane in its group */
    const long base = (long)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int k = tid; k < CHUNK; k += NTHREADS)
        if (base + k < n)
            v += x[base + k];

    slots[tid] = 0.0f;
    int kept = v != 0.0f;
    for (int d = 1; d < GROUP; d <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, kept, d); /* BUG: no width GROUP */
        if (lane >= d)
            kept += t;
    }
    __syncthreads();
    if (v != 0.0f)
        slots[group * GROUP + kept - 1] = v;
    if (tid % GROUP == GROUP - 1)
        counts[group] = kept;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int g = 0; g < NTHREADS / GROUP; ++g)
            for (int i = 0; i < counts[g] && i < GROUP; ++i)
                total += slots[g * GROUP + i];
        partials[blockIdx.x] = total;
    }
}
