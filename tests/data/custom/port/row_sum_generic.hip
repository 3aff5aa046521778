// row_sum_generic.hip: a HIP port of row_sum.cu written for any wave width: the shuffle tree
// starts at warpSize / 2 and one leader per wave keeps its sum. For the harness's op = custom
// oracle tests.
#include <hip/hip_runtime.h>

__global__ void row_sum_generic(const float *x, float *y, int rows, int cols)
{
    __shared__ float part[64];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    for (int off = warpSize / 2; off > 0; off /= 2)
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
