/* sgemm_v2.cu: one candidate of cuda/sgemm_optimized (speedlab/README.md lists them), with the
 * harness's sgemm ABI (A, B, C, M, N, K), block 16 x 16, grid ceil(N/128) x ceil(M/128).
 * One entry per file: the CPU emulator counts a file's static shared memory as a whole. */
#include "sgemm_opt.cuh"

/* v2: v1 without fragment double buffering (fewer registers; other warps hide latency). */
extern "C" __global__ void __launch_bounds__(256, 2)
    sl_sgemm_v2(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                int M, int N, int K)
{
    sl_sgemm_db<true, false, false>(A, B, C, M, N, K);
}
