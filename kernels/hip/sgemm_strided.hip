/* sgemm_strided (HIP port): C = A * B with row strides (sgemm_strided ABI: A, B, C, M, N, K, lda,
 * ldb, ldc). The naive form addressed through leading dimensions, as BLAS callers pass
 * sub-matrices: element (i, k) of A is A[i * lda + k]. The padding between rows is not
 * ours: never read as data, never written. */
#include <hip/hip_runtime.h>

extern "C" __global__ void sgemm_strided(const float *__restrict__ A, const float *__restrict__ B,
                                         float *__restrict__ C, int M, int N, int K, int lda, int ldb,
                                         int ldc)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * lda + k], B[(size_t)k * ldb + col], acc);
    C[(size_t)row * ldc + col] = acc;
}
