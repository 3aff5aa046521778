#include <hip/hip_runtime.h>
/* sgemm_coarsened (HIP port): tiled C = A * B (row-major fp32) with 32 x 32 tiles and 16 x 16
 * threads, each computing a 2 x 2 group of C spread 16 apart (coarsening factor 2), so each
 * staged value is reused twice from registers. Grid ceil(N/32) x ceil(M/32). Out-of-range
 * loads stage zeros and out-of-range stores are skipped: any M, N, K >= 0. */

#define TILE 32
#define THREADS 16
#define CF (TILE / THREADS)

extern "C" __global__ void sgemm_coarsened(const float *__restrict__ A,
                                           const float *__restrict__ B, float *__restrict__ C,
                                           int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * TILE + ty;
    int col0 = blockIdx.x * TILE + tx;
    float acc[CF][CF] = {{0.0f}};

    for (int k0 = 0; k0 < K; k0 += TILE) {
#pragma unroll
        for (int i = 0; i < CF; ++i) {
#pragma unroll
            for (int j = 0; j < CF; ++j) {
                int r = ty + i * THREADS, c = tx + j * THREADS;
                int arow = row0 + i * THREADS, acol = k0 + c;
                int brow = k0 + r, bcol = col0 + j * THREADS;
                As[r][c] = (arow < M && acol < K) ? A[(size_t)arow * K + acol] : 0.0f;
                Bs[r][c] = (brow < K && bcol < N) ? B[(size_t)brow * N + bcol] : 0.0f;
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
#pragma unroll
            for (int i = 0; i < CF; ++i) {
                float a = As[ty + i * THREADS][k];
#pragma unroll
                for (int j = 0; j < CF; ++j)
                    acc[i][j] = fmaf(a, Bs[k][tx + j * THREADS], acc[i][j]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < CF; ++i) {
#pragma unroll
        for (int j = 0; j < CF; ++j) {
            int r = row0 + i * THREADS, c = col0 + j * THREADS;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
