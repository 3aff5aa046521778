// row_sum_wave64.hip: a row sum written for 64-lane waves only (declared widths = 64): the
// shuffle tree starts at offset 32 and one leader per 64 threads keeps its sum, so on 32-lane
// waves half of each row is lost. An oracle for the harness's tests of oracle widths (issue 47).
#include <hip/hip_runtime.h>

__global__ void row_sum_wave64(const float *x, float *y, int rows, int cols)
{
    __shared__ float part[16];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    for (int off = 32; off > 0; off /= 2)
        s += __shfl_down(s, off);
    if (threadIdx.x % 64 == 0)
        part[threadIdx.x / 64] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < (int)blockDim.x / 64; w++)
            t += part[w];
        y[blockIdx.x] = t;
    }
}
