/* sgemm_split.cu: variants of the shipped cuda/sgemm_optimized, built from its templates
 * (speedlab.cu includes this after kernels/cuda/sgemm_optimized.cu): how many blocks share
 * a C tile along K (clusters of 1, 2 or 4 on z) and the register budget (128 for two
 * blocks per SM, or up to 255 for one). The shipped entry is the z = 2, 128-register one. */

/* s1: the whole-tile fast path alone, no split (grid z = 1). */
extern "C" __global__ void __launch_bounds__(256, 2)
    sl_opt_s1(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
              int K)
{
    op_sgemm<1>(A, B, C, M, N, K);
}

/* s4: four blocks per C tile (grid z = 4), summed as (s0 + s1) + (s2 + s3). */
extern "C" __global__ void __launch_bounds__(256, 2) OP_CLUSTER_Z(4)
    sl_opt_s4(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
              int K)
{
    op_sgemm<4>(A, B, C, M, N, K);
}

/* s1r, s2r: s1 and the shipped s2 with up to 255 registers (one block, 8 warps, per SM). */
extern "C" __global__ void __launch_bounds__(256, 1)
    sl_opt_s1r(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
               int K)
{
    op_sgemm<1>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(256, 1) OP_CLUSTER_Z(2)
    sl_opt_s2r(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
               int K)
{
    op_sgemm<2>(A, B, C, M, N, K);
}
