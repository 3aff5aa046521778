// names_member.hip: an SGEMM kernel that is a static member function, as hip-clang allows (nvcc
// does not: HIP on NVIDIA cannot build this file), found by its name as written,
// `real::Tiles::gemm`. The op's ABI (A, B, C, M, N, K), row-major, bounds-checked. Written for
// the harness's tests.
#include <hip/hip_runtime.h>

namespace real {

struct Tiles {
    static __global__ void gemm(const float *A, const float *B, float *C, int M, int N, int K)
    {
        int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
        if (row >= M || col >= N)
            return;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
};

} // namespace real
