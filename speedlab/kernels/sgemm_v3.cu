/* sgemm_v3.cu: one candidate of cuda/sgemm_optimized (speedlab/README.md lists them), with the
 * harness's sgemm ABI (A, B, C, M, N, K), block 16 x 16, grid ceil(N/128) x ceil(M/128).
 * One entry per file: the CPU emulator counts a file's static shared memory as a whole. */
#include "sgemm_opt.cuh"

/* v3: v1 with the plain 16 x 16 thread grid instead of warp tiles. */
extern "C" __global__ void __launch_bounds__(256, 2)
    sl_sgemm_v3(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                int M, int N, int K)
{
    sl_sgemm_db<false, true, false>(A, B, C, M, N, K);
}
