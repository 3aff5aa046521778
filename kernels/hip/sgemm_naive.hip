#include <hip/hip_runtime.h>
/* sgemm_naive (HIP port): one thread per element of C = A * B (row-major fp32), the dot
 * product read straight from global memory; 16 x 16 threads, grid ceil(N/16) x ceil(M/16).
 * It is the correctness baseline, deliberately not fast: no shared memory, no tiling.
 * Any M, N, K >= 0: out-of-range threads store nothing, K = 0 stores zeros. */

extern "C" __global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N)
        return;
    /* size_t products: M * K may exceed 2^31 elements long before memory runs out */
    const float *a = A + (size_t)row * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(a[k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
