#include <hip/hip_runtime.h>
/* reduce_warp32 (HIP port, KNOWN-BAD CANARY at any width but 32): block b sums
 * x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with 256 threads. Written the CUDA way and
 * left so by the port: lane = tid & 31, leaders write warp_sums[tid >> 5], xor shuffles 16..1,
 * while the final stage counts the partials as blockDim.x / warpSize (hipify keeps warpSize).
 * Width 32: exact. Width 64: each 32-half reduces correctly, 8 partials are written, but only
 * blockDim.x / 64 = 4 are read: every block partial loses the sum of threads 128..255
 * (a block of 128 elements or fewer still comes out right: its data all sit in threads 0..127).
 * Widths below 32: xor offsets >= width return the lane's own value (doubling it) and the
 * count reads zeroed slots: deterministic, no race. Do not fix: the harness must flag it. */

#define NTHREADS 256
#define CHUNK 1024

__device__ __forceinline__ float warp_sum32(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor(v, offset);
    return v;
}

extern "C" __global__ void reduce_warp32(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    /* 32 slots: the CUDA idiom for up to 1024 threads / 32 lanes; zeroed so narrow
     * widths read zeros, not stale LDS */
    __shared__ float warp_sums[32];
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    if (tid < 32)
        warp_sums[tid] = 0.0f;

    size_t base = (size_t)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int i = 0; i < CHUNK / NTHREADS; ++i) {
        size_t idx = base + tid + (size_t)i * NTHREADS;
        if (idx < (size_t)n)
            v += x[idx];
    }
    __syncthreads();

    v = warp_sum32(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = (tid < (int)(blockDim.x / warpSize)) ? warp_sums[lane] : 0.0f;
        v = warp_sum32(v);
        if (tid == 0)
            partials[blockIdx.x] = v;
    }
}
