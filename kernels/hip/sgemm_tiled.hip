#include <hip/hip_runtime.h>
/* sgemm_tiled (HIP port): C = A * B (row-major fp32) with 16 x 16 tiles of A and B staged
 * in shared memory (LDS): load, barrier, accumulate, barrier. 16 x 16 threads, one C
 * element each, grid ceil(N/16) x ceil(M/16). Loads past M, N or K stage zeros so any
 * M, N, K >= 0 works; it does not coarsen or pad (see sgemm_coarsened, sgemm_optimized). */

#define TILE 16

extern "C" __global__ void sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        /* every thread stages (zeros when outside), so the barriers are reached by all */
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
