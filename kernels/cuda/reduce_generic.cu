/* reduce_generic: block b sums x[b*8192 .. min(n, (b+1)*8192)) into partials[b] with
 * 256 threads, correct at any warp width: shuffle offsets start at warpSize / 2 and
 * use width = warpSize, the per-warp partial array is sized for the narrowest width
 * modelled (4 lanes => 64 warps), and thread 0 adds the warp partials in order. */
#include <cuda_runtime.h>

#define RG_THREADS 256
/* 8192 floats per block: each thread has eight 128-bit loads in flight before its first
 * add, enough to keep the memory system busy (the chunk is the manifest's too). */
#define RG_CHUNK 8192
#define RG_MIN_WIDTH 4

struct alignas(16) rg_f4 {
    float x, y, z, w;
};

/* This thread's share of the chunk: 128-bit loads, consecutive threads on consecutive
 * vectors, when the chunk is whole and x 16-byte aligned; else one float at a time. */
__device__ __forceinline__ float rg_thread_sum(const float *__restrict__ x, int n, int tid)
{
    size_t base = (size_t)blockIdx.x * RG_CHUNK;
    float s = 0.0f;
    if ((reinterpret_cast<size_t>(x) & 15) == 0 && base + RG_CHUNK <= (size_t)n) {
        const rg_f4 *p = reinterpret_cast<const rg_f4 *>(x + base) + tid;
        rg_f4 v[RG_CHUNK / (RG_THREADS * 4)];
#pragma unroll
        for (int r = 0; r < RG_CHUNK / (RG_THREADS * 4); ++r)
            v[r] = p[r * RG_THREADS];
#pragma unroll
        for (int r = 0; r < RG_CHUNK / (RG_THREADS * 4); ++r)
            s += (v[r].x + v[r].y) + (v[r].z + v[r].w);
    } else {
        size_t end = base + RG_CHUNK < (size_t)n ? base + RG_CHUNK : (size_t)n;
        for (size_t i = base + tid; i < end; i += RG_THREADS)
            s += x[i];
    }
    return s;
}

extern "C" __global__ void reduce_generic(const float *__restrict__ x, float *__restrict__ partials,
                                          int n)
{
    __shared__ float wsum[RG_THREADS / RG_MIN_WIDTH];
    int tid = threadIdx.x;
    int width = warpSize;
    float s = rg_thread_sum(x, n, tid);
    /* Every thread of the block reaches the shuffles (no early exit), so the
     * full mask is exact. */
    for (int off = width / 2; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off, width);
    if (tid % width == 0)
        wsum[tid / width] = s;
    __syncthreads();
    if (tid == 0) {
        int nwarps = (RG_THREADS + width - 1) / width;
        float total = 0.0f;
        for (int w = 0; w < nwarps; ++w)
            total += wsum[w];
        partials[blockIdx.x] = total;
    }
}
