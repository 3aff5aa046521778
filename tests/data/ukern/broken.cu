// broken.cu: a user's kernel that does not compile (a missing semicolon): an ERROR that fails
// the run, with the compiler's first error and its log, never a SKIP. For the tests.
__global__ void gemm_broken(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x
    if (i < M * N)
        C[i] = alpha * A[0] * B[0] * K + beta * C[i];
}
