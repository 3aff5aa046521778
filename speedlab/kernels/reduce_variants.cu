/* reduce_variants.cu: candidate reduce_warp32 / reduce_generic kernels with the harness's
 * reduce ABI (x, partials, n; block b writes partials[b] = sum of x[b*CHUNK ..
 * min(n, (b+1)*CHUNK))), 256 threads, grid ceil(n / CHUNK). They differ from the shipped
 * ones only in the load phase: a larger chunk read with 128-bit loads, all issued before
 * the first add, so each thread keeps CHUNK / 256 bytes in flight. The block-level
 * reduction that each form models (brief section 1) is unchanged. */
#include <cuda_runtime.h>

#define SR_THREADS 256

struct alignas(16) sr_f4 {
    float x, y, z, w;
};

/* This thread's share of the block's chunk. A whole chunk with a 16-byte aligned x takes
 * the vector path (every thread loads CHUNK / 1024 vectors, consecutive threads on
 * consecutive vectors); the last, partial chunk or an unaligned x, one float at a time. */
template <int CHUNK>
__device__ __forceinline__ float sr_load(const float *__restrict__ x, int n, int tid)
{
    static_assert(CHUNK % (SR_THREADS * 4) == 0, "a chunk is whole vectors for every thread");
    constexpr int V = CHUNK / (SR_THREADS * 4);
    size_t base = (size_t)blockIdx.x * CHUNK;
    float s = 0.0f;
    if ((reinterpret_cast<size_t>(x) & 15) == 0 && base + CHUNK <= (size_t)n) {
        const sr_f4 *p = reinterpret_cast<const sr_f4 *>(x + base) + tid;
        sr_f4 v[V];
#pragma unroll
        for (int r = 0; r < V; ++r)
            v[r] = p[r * SR_THREADS];
#pragma unroll
        for (int r = 0; r < V; ++r)
            s += (v[r].x + v[r].y) + (v[r].z + v[r].w);
    } else {
        size_t end = base + CHUNK < (size_t)n ? base + CHUNK : (size_t)n;
        for (size_t i = base + tid; i < end; i += SR_THREADS)
            s += x[i];
    }
    return s;
}

/* reduce_warp32's block stage: barrier tree to 64 partials, then shuffles 16..1 with
 * lane = tid & 31 (written for 32 lanes). */
__device__ __forceinline__ void sr_block_warp32(float s, float *__restrict__ partials, int tid)
{
    __shared__ float sm[SR_THREADS];
    __shared__ float wsum[2];
    sm[tid] = s;
    __syncthreads();
    for (int stride = SR_THREADS / 2; stride >= 64; stride >>= 1) {
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

/* reduce_generic's block stage: shuffles from warpSize / 2, per-warp partials sized for
 * the narrowest width modelled (4 lanes). */
__device__ __forceinline__ void sr_block_generic(float s, float *__restrict__ partials, int tid)
{
    __shared__ float wsum[SR_THREADS / 4];
    int width = warpSize;
    for (int off = width / 2; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off, width);
    if (tid % width == 0)
        wsum[tid / width] = s;
    __syncthreads();
    if (tid == 0) {
        int nwarps = (SR_THREADS + width - 1) / width;
        float total = 0.0f;
        for (int w = 0; w < nwarps; ++w)
            total += wsum[w];
        partials[blockIdx.x] = total;
    }
}

#define SR_WARP32(name, chunk)                                                                    \
    extern "C" __global__ void __launch_bounds__(SR_THREADS)                                      \
        name(const float *__restrict__ x, float *__restrict__ partials, int n)                    \
    {                                                                                             \
        sr_block_warp32(sr_load<chunk>(x, n, threadIdx.x), partials, threadIdx.x);                \
    }
#define SR_GENERIC(name, chunk)                                                                   \
    extern "C" __global__ void __launch_bounds__(SR_THREADS)                                      \
        name(const float *__restrict__ x, float *__restrict__ partials, int n)                    \
    {                                                                                             \
        sr_block_generic(sr_load<chunk>(x, n, threadIdx.x), partials, threadIdx.x);               \
    }

SR_WARP32(sl_rw_2k, 2048)
SR_WARP32(sl_rw_4k, 4096)
SR_WARP32(sl_rw_8k, 8192)
SR_WARP32(sl_rw_16k, 16384)
SR_GENERIC(sl_rg_2k, 2048)
SR_GENERIC(sl_rg_4k, 4096)
SR_GENERIC(sl_rg_8k, 8192)
SR_GENERIC(sl_rg_16k, 16384)
