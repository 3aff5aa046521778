/* fault_oob: known-bad SGEMM canary. Computes C = A * B like sgemm_naive, then the
 * thread owning the last element of C also writes the 4 floats just past the end
 * of C. Those land in the core's guard band (>= 4096 bytes), so the run must be
 * classed "oob", not crash: the write is small on purpose. */
#include <cuda_runtime.h>

extern "C" __global__ void fault_oob(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    size_t at = (size_t)row * N + col;
    C[at] = acc;
    if (row == M - 1 && col == N - 1) {
        for (int e = 1; e <= 4; ++e)
            C[at + e] = acc; /* the bug: past the end of C */
    }
}
