/* tile_edge: a planted bug for --shrink's tests, not a kernel to ship. sgemm_naive, except
 * that rows past the first 16-row tile drop the last term of their dot product: every case
 * with M > 16 and K >= 1 fails (wrong), and the smallest such case is M=17 N=1 K=1. */
#include <cuda_runtime.h>

extern "C" __global__ void tile_edge(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    int terms = row >= 16 ? K - 1 : K; /* the bug */
    float acc = 0.0f;
    for (int k = 0; k < terms; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
