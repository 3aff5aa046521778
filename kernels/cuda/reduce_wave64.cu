/* reduce_wave64: the block sum of reduce_warp32 written for 64-wide wavefronts
 * (shuffle offsets 32..1, lane = tid & 63, leader writes wsum[tid >> 6]). Exact at
 * width 64. At width 32 the offset-32 shuffle returns the caller's own value, so
 * each warp doubles its half and only warp 0's leader writes: partials[b] becomes
 * twice the sum of half the chunk, deterministically (brief pattern 6). On data
 * whose halves sum alike (all ones) that equals the true sum: use varied inputs. */
#include <cuda_runtime.h>

#define RV_THREADS 256
#define RV_CHUNK 1024

extern "C" __global__ void reduce_wave64(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    __shared__ float sm[RV_THREADS];
    __shared__ float wsum[1]; /* 64 partials / 64 lanes */
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * RV_CHUNK;
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < RV_CHUNK / RV_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * RV_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    sm[tid] = s;
    __syncthreads();
    for (int stride = RV_THREADS / 2; stride >= 64; stride >>= 1) {
        if (tid < stride)
            sm[tid] += sm[tid + stride];
        __syncthreads();
    }
    if (tid < 64) {
        float v = sm[tid];
        int lane = tid & 63;
#pragma unroll
        for (int off = 32; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0)
            wsum[tid >> 6] = v;
    }
    __syncthreads();
    if (tid == 0)
        partials[blockIdx.x] = wsum[0];
}
