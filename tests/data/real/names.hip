// names.hip: SGEMM kernels (the op's ABI: A, B, C, M, N, K, row-major, bounds-checked) found by
// their C++ names as written, as hipModuleGetFunction cannot: a template-id in a namespace, a
// namespaced kernel with C++ linkage, and an extern "C" one for comparison. Each computes the
// same C = A * B, one thread per element. Written for the harness's tests.
#include <hip/hip_runtime.h>

namespace real {

__device__ inline void gemm_at(const float *A, const float *B, float *C, int M, int N, int K, int row, int col)
{
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

template <int TILE>
__global__ void gemm_t(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_at(A, B, C, M, N, K, blockIdx.y * TILE + threadIdx.y, blockIdx.x * TILE + threadIdx.x);
}

__global__ void gemm_plain(const float *A, const float *B, float *C, int M, int N, int K)
{
    gemm_at(A, B, C, M, N, K, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.x * blockDim.x + threadIdx.x);
}

} // namespace real

extern "C" __global__ void gemm_c(const float *A, const float *B, float *C, int M, int N, int K)
{
    real::gemm_at(A, B, C, M, N, K, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.x * blockDim.x + threadIdx.x);
}
