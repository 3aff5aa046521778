/* reduce_warp32: block b sums x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with
 * 256 threads: a shared-memory tree with barriers down to 64 partials, then a last
 * stage written for 32-lane warps (shuffle offsets 16..1, lane = tid & 31, leaders
 * write wsum[tid >> 5]). Exact at width 32. At a narrower width the offsets >= width
 * return the caller's own value, so the result is deterministically wrong: the
 * known-bad half of brief pattern 4, kept deterministic so it cannot pass by luck. */
#include <cuda_runtime.h>

#define RW_THREADS 256
#define RW_CHUNK 1024

extern "C" __global__ void reduce_warp32(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    __shared__ float sm[RW_THREADS];
    __shared__ float wsum[2]; /* 64 partials / 32 lanes */
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * RW_CHUNK;
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < RW_CHUNK / RW_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * RW_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    sm[tid] = s;
    __syncthreads();
    for (int stride = RW_THREADS / 2; stride >= 64; stride >>= 1) {
        if (tid < stride)
            sm[tid] += sm[tid + stride];
        __syncthreads();
    }
    if (tid < 64) {
        float v = sm[tid];
        int lane = tid & 31;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0)
            wsum[tid >> 5] = v;
    }
    __syncthreads();
    if (tid == 0)
        partials[blockIdx.x] = wsum[0] + wsum[1];
}
