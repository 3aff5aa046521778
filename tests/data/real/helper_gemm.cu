// helper_gemm.cu: a whole CUDA program leaning on a helper header found with angle brackets
// (`#include <real_helper.h>`, built with -Iinc as cuda-samples build theirs with -I../Common),
// whose checks exist only under the runtime's include guards, launching on the null stream by
// its flag's name. C = A B, row-major, any M, N, K. Written for the harness's tests.
#include <cuda_runtime.h>
#include <real_helper.h>

__global__ void helper_gemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

int main()
{
    float *a, *b, *c;
    int n = 64;
    real_check(cudaMalloc(&a, n * n * sizeof(float)));
    real_check(cudaMalloc(&b, n * n * sizeof(float)));
    real_check(cudaMalloc(&c, n * n * sizeof(float)));
    std::printf("integrated: %d\n", real_integrated(0));
    helper_gemm<<<dim3(n / 16, n / 16), dim3(16, 16), 0, cudaStreamDefault>>>(a, b, c, n, n, n);
    real_check(cudaGetLastError());
    return 0;
}
