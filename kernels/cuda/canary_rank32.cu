/* canary_rank32.cu: known-bad reduce (pattern 7), the CUDA original of hip/canary_rank32:
 * stream compaction that ranks each lane among the warp's kept lanes with masks in 32 bits:
 * the ballot kept in `unsigned` and the lower lanes' mask (1u << (lane & 31)) - 1. Right at
 * widths up to 32; ported to wave64 (the port check at width 64) a lane of the upper half gets
 * the rank of its lower-half twin: the two write one slot, the upper slots stay empty, and
 * the block partial deterministically loses values. Reduce ABI, 256 threads, chunk 1024. */
#include <cuda_runtime.h>

#define NTHREADS 256
#define CHUNK 1024
#define MIN_WIDTH 4

extern "C" __global__ void canary_rank32(const float *x, float *partials, int n)
{
    __shared__ float slots[NTHREADS];
    __shared__ float warp_sums[NTHREADS / MIN_WIDTH];
    const int tid = threadIdx.x;
    const int lane = tid % warpSize, warp = tid / warpSize;
    const long base = (long)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int k = tid; k < CHUNK; k += NTHREADS)
        if (base + k < n)
            v += x[base + k];

    slots[tid] = 0.0f;
    __syncthreads();
    unsigned keep = __ballot_sync(0xffffffffu, v != 0.0f); /* BUG: 32 bits */
    unsigned below = (1u << (lane & 31)) - 1u;                /* BUG: 32 bits */
    if (v != 0.0f)
        slots[warp * warpSize + __popc(keep & below)] = v;
    __syncthreads();
    if (lane == 0) {
        float s = 0.0f;
        for (int i = 0; i < __popc(keep); ++i)
            s += slots[warp * warpSize + i];
        warp_sums[warp] = s;
    }
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < NTHREADS / warpSize; ++w)
            total += warp_sums[w];
        partials[blockIdx.x] = total;
    }
}
