// row_sum_warp32.hip: a HIP port of row_sum.cu that kept the CUDA shuffle tree over 32 lanes
// (offsets 16..1) but takes one leader per hardware wave (warpSize): right on 32-lane waves;
// on 64-lane waves each leader holds the sum of its first 32 lanes only. For the harness's
// op = custom oracle tests.
#include <hip/hip_runtime.h>

__global__ void row_sum_warp32(const float *x, float *y, int rows, int cols)
{
    __shared__ float part[32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down(s, off);
    if (threadIdx.x % warpSize == 0)
        part[threadIdx.x / warpSize] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < (int)blockDim.x / warpSize; w++)
            t += part[w];
        y[blockIdx.x] = t;
    }
}
