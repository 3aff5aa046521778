// gemm_colmajor.cu: a user's SGEMM with the BLAS (and cuBLAS) conventions: column-major,
// C = alpha * A * B + beta * C, A(i, k) at A[i + k * lda]. No includes at all: nvcc includes
// the CUDA runtime implicitly, and so must the harness. sgemm_nn_nobeta takes beta and ignores
// it. One thread per element of C, bounds-checked. Written for the harness's tests.
__global__ void sgemm_nn(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[i + (size_t)k * lda] * B[k + (size_t)j * ldb];
    C[i + (size_t)j * ldc] = alpha * acc + beta * C[i + (size_t)j * ldc];
}

__global__ void sgemm_nn_nobeta(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                                float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[i + (size_t)k * lda] * B[k + (size_t)j * ldb];
    C[i + (size_t)j * ldc] = alpha * acc;
}
