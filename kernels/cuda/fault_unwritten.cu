/* fault_unwritten: known-bad SGEMM canary. sgemm_naive with an off-by-one guard
 * that skips the last row of C, leaving the core's poison there: the run must be
 * classed "unwritten". With M = 1 nothing at all is written. */
#include <cuda_runtime.h>

extern "C" __global__ void fault_unwritten(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M - 1 || col >= N) /* the bug: should be row >= M */
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
