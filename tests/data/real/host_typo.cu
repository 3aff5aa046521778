// host_typo.cu: a whole file with a mistake in its host code (a name never declared): nvcc
// rejects it, and so does the emulator, as an ERROR with the compiler's first error, not a SKIP.
// Written for the harness's tests.
#include <cstdio>

extern "C" __global__ void typo_gemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N && K > 0)
        C[row * N + col] = A[row * K] * B[col];
}

int main()
{
    std::printf("%d\n", undeclared_size);
    return 0;
}
