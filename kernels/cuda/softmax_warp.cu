/* softmax_warp: y = softmax of each row of x (rows x cols, row-major), one warp per row,
 * width-generic: the lane, the stride over the row's columns, the butterfly's offsets and the
 * rows a block covers all come from warpSize at run time. Whole warps take rows
 * blockIdx.x * warps + warp, then step by the grid's warps, so the manifest's grid is right
 * at any width; a partial last warp (a block that is no multiple of the width) idles. */
#include <cuda_runtime.h>

extern "C" __global__ void softmax_warp(const float *x, float *y, int rows, int cols)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int warps = blockDim.x / warpSize;
    if (warp >= warps)
        return;
    for (long row = (long)blockIdx.x * warps + warp; row < rows; row += (long)gridDim.x * warps) {
        const float *xr = x + row * cols;
        float m = -INFINITY;
        for (int j = lane; j < cols; j += warpSize)
            m = fmaxf(m, xr[j]);
        for (int o = warpSize / 2; o > 0; o >>= 1)
            m = fmaxf(m, __shfl_xor_sync(__activemask(), m, o));
        float s = 0.0f;
        for (int j = lane; j < cols; j += warpSize)
            s += expf(xr[j] - m);
        for (int o = warpSize / 2; o > 0; o >>= 1)
            s += __shfl_xor_sync(__activemask(), s, o);
        for (int j = lane; j < cols; j += warpSize)
            y[row * cols + j] = expf(xr[j] - m) / s;
    }
}
