/* sl_co_v0: the shipped cuda/sgemm_coarsened before issue 15 (baseline).
 * C = A * B (row-major, fp32) with 32 x 32 shared-memory tiles and
 * 16 x 16 threads, each computing a 2 x 2 group of C spread 16 apart (coarsening
 * factor 2), so one staged value feeds two FMAs. Zero-filled edge tiles make any
 * M, N, K >= 0 correct. No transposition or padding: see sgemm_optimized. */
#include <cuda_runtime.h>

#define V0C_T 32 /* tile edge */
#define V0C_F 2  /* coarsening factor per dimension */
#define V0C_S 16 /* V0C_T / V0C_F: thread grid edge and the spread between a thread's outputs */

extern "C" __global__ void sl_co_v0(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[V0C_T][V0C_T];
    __shared__ float Bs[V0C_T][V0C_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * V0C_T, col0 = blockIdx.x * V0C_T;
    float acc[V0C_F][V0C_F] = {{0.0f, 0.0f}, {0.0f, 0.0f}};

    for (int k0 = 0; k0 < K; k0 += V0C_T) {
#pragma unroll
        for (int i = 0; i < V0C_F; ++i) {
#pragma unroll
            for (int j = 0; j < V0C_F; ++j) {
                int r = ty + i * V0C_S, c = tx + j * V0C_S;
                int ar = row0 + r, ak = k0 + c; /* A tile: row r, column c */
                int bk = k0 + r, bc = col0 + c; /* B tile: row r, column c */
                As[r][c] = (ar < M && ak < K) ? A[(size_t)ar * K + ak] : 0.0f;
                Bs[r][c] = (bk < K && bc < N) ? B[(size_t)bk * N + bc] : 0.0f;
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < V0C_T; ++k) {
            float a0 = As[ty][k], a1 = As[ty + V0C_S][k];
            float b0 = Bs[k][tx], b1 = Bs[k][tx + V0C_S];
            acc[0][0] = fmaf(a0, b0, acc[0][0]);
            acc[0][1] = fmaf(a0, b1, acc[0][1]);
            acc[1][0] = fmaf(a1, b0, acc[1][0]);
            acc[1][1] = fmaf(a1, b1, acc[1][1]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < V0C_F; ++i) {
#pragma unroll
        for (int j = 0; j < V0C_F; ++j) {
            int r = row0 + ty + i * V0C_S, c = col0 + tx + j * V0C_S;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
