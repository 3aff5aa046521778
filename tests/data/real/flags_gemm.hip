// flags_gemm.hip: flags_gemm.cu for HIP: an SGEMM (the op's ABI: A, B, C, M, N, K, row-major)
// that builds only with the manifest's `includes = inc` (its "real_step.h") and
// `defines = REAL_TILE=16 REAL_ROW_MAJOR`, as hipcc takes -I and -D. Bounds-checked; one thread
// per element of C, in REAL_TILE x REAL_TILE blocks. Written for the harness's tests.
#include <hip/hip_runtime.h>

#include "real_step.h"

#ifndef REAL_ROW_MAJOR
#error "REAL_ROW_MAJOR is the manifest's: defines = REAL_TILE=16 REAL_ROW_MAJOR"
#endif

extern "C" __global__ void flags_gemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * REAL_TILE + threadIdx.y, col = blockIdx.x * REAL_TILE + threadIdx.x;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = real_step(acc, A[row * K + k], B[k * N + col]);
    C[row * N + col] = acc;
}
