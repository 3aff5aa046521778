/* sgemm_coarsened: C = A * B (row-major, fp32) with 32 x 32 shared-memory tiles and
 * 16 x 16 threads, each computing a 2 x 2 group of C spread 16 apart (coarsening
 * factor 2), so one staged value feeds two FMAs. Zero-filled edge tiles make any
 * M, N, K >= 0 correct. No transposition or padding: see sgemm_optimized. */
#include <cuda_runtime.h>

#define CO_T 32 /* tile edge */
#define CO_F 2  /* coarsening factor per dimension */
#define CO_S 16 /* CO_T / CO_F: thread grid edge and the spread between a thread's outputs */

extern "C" __global__ void sgemm_coarsened(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[CO_T][CO_T];
    __shared__ float Bs[CO_T][CO_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * CO_T, col0 = blockIdx.x * CO_T;
    float acc[CO_F][CO_F] = {{0.0f, 0.0f}, {0.0f, 0.0f}};

    for (int k0 = 0; k0 < K; k0 += CO_T) {
#pragma unroll
        for (int i = 0; i < CO_F; ++i) {
#pragma unroll
            for (int j = 0; j < CO_F; ++j) {
                int r = ty + i * CO_S, c = tx + j * CO_S;
                int ar = row0 + r, ak = k0 + c; /* A tile: row r, column c */
                int bk = k0 + r, bc = col0 + c; /* B tile: row r, column c */
                As[r][c] = (ar < M && ak < K) ? A[(size_t)ar * K + ak] : 0.0f;
                Bs[r][c] = (bk < K && bc < N) ? B[(size_t)bk * N + bc] : 0.0f;
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < CO_T; ++k) {
            float a0 = As[ty][k], a1 = As[ty + CO_S][k];
            float b0 = Bs[k][tx], b1 = Bs[k][tx + CO_S];
            acc[0][0] = fmaf(a0, b0, acc[0][0]);
            acc[0][1] = fmaf(a0, b1, acc[0][1]);
            acc[1][0] = fmaf(a1, b0, acc[1][0]);
            acc[1][1] = fmaf(a1, b1, acc[1][1]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < CO_F; ++i) {
#pragma unroll
        for (int j = 0; j < CO_F; ++j) {
            int r = row0 + ty + i * CO_S, c = col0 + tx + j * CO_S;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
