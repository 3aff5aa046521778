/* my_reduce (HIP): tests/data/user_kernel/my_reduce.cu as a HIP user would write it, run from
 * user.manifest with no rebuild of the harness (each backend compiles it at run time: hipcc on
 * AMD, nvcc through HIP's headers on NVIDIA, g++ on the emulator). Block b sums
 * x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with 256 threads, correct at any wavefront
 * width: shuffles from warpSize / 2, per-wave partials sized for 4-lane waves. */
#include <hip/hip_runtime.h>

#define RG_THREADS 256
#define RG_CHUNK 1024
#define RG_MIN_WIDTH 4

extern "C" __global__ void my_reduce_hip(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    __shared__ float wsum[RG_THREADS / RG_MIN_WIDTH];
    int tid = threadIdx.x;
    int width = warpSize;
    size_t base = (size_t)blockIdx.x * RG_CHUNK;
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < RG_CHUNK / RG_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * RG_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    /* every thread of the block reaches the shuffles: no early exit */
    for (int off = width / 2; off > 0; off >>= 1)
        s += __shfl_down(s, off, width);
    if (tid % width == 0)
        wsum[tid / width] = s;
    __syncthreads();
    if (tid == 0) {
        int nwaves = (RG_THREADS + width - 1) / width;
        float total = 0.0f;
        for (int w = 0; w < nwaves; ++w)
            total += wsum[w];
        partials[blockIdx.x] = total;
    }
}
