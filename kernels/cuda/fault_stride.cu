/* fault_stride: known-bad canary (sgemm_strided ABI). Reads A and B through their strides
 * but stores C as if it were packed (row stride N instead of ldc): the classic
 * sub-matrix bug. Rows land in the padding, whose rogue values must survive. */
#include <cuda_runtime.h>

extern "C" __global__ void fault_stride(const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C, int M, int N, int K, int lda, int ldb, int ldc)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    (void)ldc; /* the bug */
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * lda + k], B[(size_t)k * ldb + col], acc);
    C[(size_t)row * N + col] = acc;
}
