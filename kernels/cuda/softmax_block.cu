/* softmax_block: y = softmax of each row of x (rows x cols, row-major), one block per row,
 * the barrier form: the block's threads stride over the row by blockDim.x, and the row's
 * maximum and the sum of exp(x - max) are each a tree in shared memory with a barrier per
 * step. No warp operation, so no width enters; blockDim.x a power of two up to 256. */
#include <cuda_runtime.h>

#define SM_MAX_THREADS 256

/* The block's max (max = 1) or sum of v, in every thread. */
__device__ __forceinline__ float softmax_block_tree(float *red, float v, int max)
{
    const int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (tid < half)
            red[tid] = max ? fmaxf(red[tid], red[tid + half]) : red[tid] + red[tid + half];
        __syncthreads();
    }
    const float all = red[0];
    __syncthreads(); /* red is reused by the next tree */
    return all;
}

extern "C" __global__ void softmax_block(const float *x, float *y, int rows, int cols)
{
    __shared__ float red[SM_MAX_THREADS];
    const long row = blockIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + row * cols;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        m = fmaxf(m, xr[j]);
    m = softmax_block_tree(red, m, 1);
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        s += expf(xr[j] - m);
    s = softmax_block_tree(red, s, 0);
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        y[row * cols + j] = expf(xr[j] - m) / s;
}
