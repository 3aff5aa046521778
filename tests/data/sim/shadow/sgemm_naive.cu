/* sgemm_naive.cu (a user's file, named like a shipped kernel): writes 42 everywhere. The
 * harness must build and run this file, never the shipped kernel of the same name. */
extern "C" __global__ void sgemm_naive(const float *A, const float *B, float *C, int M, int N,
                                       int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N && A && B && K >= 0)
        C[(size_t)row * N + col] = 42.0f;
}
