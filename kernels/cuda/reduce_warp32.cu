/* reduce_warp32: block b sums x[b*8192 .. min(n, (b+1)*8192)) into partials[b] with
 * 256 threads: a shared-memory tree with barriers down to 64 partials, then a last
 * stage written for 32-lane warps (shuffle offsets 16..1, lane = tid & 31, leaders
 * write wsum[tid >> 5]). Exact at width 32. At a narrower width the offsets >= width
 * return the caller's own value, so the result is deterministically wrong: the
 * known-bad half of brief pattern 4, kept deterministic so it cannot pass by luck. */
#include <cuda_runtime.h>

#define RW_THREADS 256
/* 8192 floats per block: each thread has eight 128-bit loads in flight before its first
 * add, enough to keep the memory system busy (the chunk is the manifest's too). */
#define RW_CHUNK 8192

struct alignas(16) rw_f4 {
    float x, y, z, w;
};

/* This thread's share of the chunk: 128-bit loads, consecutive threads on consecutive
 * vectors, when the chunk is whole and x 16-byte aligned; else one float at a time. */
__device__ __forceinline__ float rw_thread_sum(const float *__restrict__ x, int n, int tid)
{
    size_t base = (size_t)blockIdx.x * RW_CHUNK;
    float s = 0.0f;
    if ((reinterpret_cast<size_t>(x) & 15) == 0 && base + RW_CHUNK <= (size_t)n) {
        const rw_f4 *p = reinterpret_cast<const rw_f4 *>(x + base) + tid;
        rw_f4 v[RW_CHUNK / (RW_THREADS * 4)];
#pragma unroll
        for (int r = 0; r < RW_CHUNK / (RW_THREADS * 4); ++r)
            v[r] = p[r * RW_THREADS];
#pragma unroll
        for (int r = 0; r < RW_CHUNK / (RW_THREADS * 4); ++r)
            s += (v[r].x + v[r].y) + (v[r].z + v[r].w);
    } else {
        size_t end = base + RW_CHUNK < (size_t)n ? base + RW_CHUNK : (size_t)n;
        for (size_t i = base + tid; i < end; i += RW_THREADS)
            s += x[i];
    }
    return s;
}

extern "C" __global__ void reduce_warp32(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    __shared__ float sm[RW_THREADS];
    __shared__ float wsum[2]; /* 64 partials / 32 lanes */
    int tid = threadIdx.x;
    sm[tid] = rw_thread_sum(x, n, tid);
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
