/* sgemm_naive: C = A * B (row-major, fp32), one thread per element of C, the dot
 * product read straight from global memory. The baseline every other form must
 * agree with; it makes no attempt at reuse. Correct for any M, N, K >= 0. */
#include <cuda_runtime.h>

extern "C" __global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
