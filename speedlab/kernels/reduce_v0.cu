/* reduce_v0.cu: the two shipped reductions before issue 15, renamed, as baselines. */
/* sl_rw_v0: the shipped cuda/reduce_warp32 before issue 15 (baseline).
 * block b sums x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with
 * 256 threads: a shared-memory tree with barriers down to 64 partials, then a last
 * stage written for 32-lane warps (shuffle offsets 16..1, lane = tid & 31, leaders
 * write wsum[tid >> 5]). Exact at width 32. At a narrower width the offsets >= width
 * return the caller's own value, so the result is deterministically wrong: the
 * known-bad half of brief pattern 4, kept deterministic so it cannot pass by luck. */
#include <cuda_runtime.h>

#define V0W_THREADS 256
#define V0W_CHUNK 1024

extern "C" __global__ void sl_rw_v0(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    __shared__ float sm[V0W_THREADS];
    __shared__ float wsum[2]; /* 64 partials / 32 lanes */
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * V0W_CHUNK;
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < V0W_CHUNK / V0W_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * V0W_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    sm[tid] = s;
    __syncthreads();
    for (int stride = V0W_THREADS / 2; stride >= 64; stride >>= 1) {
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
/* sl_rg_v0: the shipped cuda/reduce_generic before issue 15 (baseline).
 * block b sums x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with
 * 256 threads, correct at any warp width: shuffle offsets start at warpSize / 2 and
 * use width = warpSize, the per-warp partial array is sized for the narrowest width
 * modelled (4 lanes => 64 warps), and thread 0 adds the warp partials in order. */
#include <cuda_runtime.h>

#define V0G_THREADS 256
#define V0G_CHUNK 1024
#define V0G_MIN_WIDTH 4

extern "C" __global__ void sl_rg_v0(const float *__restrict__ x, float *__restrict__ partials,
                                          int n)
{
    __shared__ float wsum[V0G_THREADS / V0G_MIN_WIDTH];
    int tid = threadIdx.x;
    int width = warpSize;
    size_t base = (size_t)blockIdx.x * V0G_CHUNK;
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < V0G_CHUNK / V0G_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * V0G_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    /* Every thread of the block reaches the shuffles (no early exit), so the
     * full mask is exact. */
    for (int off = width / 2; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off, width);
    if (tid % width == 0)
        wsum[tid / width] = s;
    __syncthreads();
    if (tid == 0) {
        int nwarps = (V0G_THREADS + width - 1) / width;
        float total = 0.0f;
        for (int w = 0; w < nwarps; ++w)
            total += wsum[w];
        partials[blockIdx.x] = total;
    }
}
