// canary_softmax32.cu: known-bad row softmax (pattern 5), op = custom, the CUDA original of
// hip/canary_softmax32: one warp per row, written for 32 lanes. The lane and the rows per
// block follow warpSize, but the loop over a row's columns strides by 32. Ported to wave64
// (the port check at width 64) lanes 32..63 start where lanes 0..31 step to, so every column
// from 32 on is counted twice and the row no longer sums to 1, and a block covers half the
// rows the host launched it for; narrower warps skip columns. Correct at width 32. 256
// threads, rows / 8 blocks.
#include <cuda_runtime.h>

#define WRITTEN_FOR 32

extern "C" __global__ void canary_softmax32(const float *x, float *y, int rows, int cols)
{
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int row = blockIdx.x * (blockDim.x / warpSize) + warp;
    if (row >= rows)
        return;
    const float *xr = x + (long)row * cols;
    float m = -INFINITY;
    for (int j = lane; j < cols; j += WRITTEN_FOR) // BUG: the stride is 32, not warpSize
        m = fmaxf(m, xr[j]);
    for (int o = warpSize / 2; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int j = lane; j < cols; j += WRITTEN_FOR)
        s += expf(xr[j] - m);
    for (int o = warpSize / 2; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int j = lane; j < cols; j += WRITTEN_FOR)
        y[(long)row * cols + j] = expf(xr[j] - m) / s;
}
