/* sgemm_coarsened: C = A * B (row-major, fp32) with 32 x 32 shared-memory tiles and
 * 16 x 16 threads, each computing a 2 x 2 group of C spread 16 apart (coarsening
 * factor 2), so one staged value feeds two FMAs. Zero-filled edge tiles make any
 * M, N, K >= 0 correct. For speed, shared memory is read 4 k at a time with 128-bit
 * loads (A row-major, B transposed) and a warp's threads form a 4 x 8 patch of the
 * thread grid; no double buffering or register tiling: see sgemm_optimized. */
#include <cuda_runtime.h>

#define CO_T 32  /* tile edge, and k per tile */
#define CO_S 16  /* CO_T / 2: thread grid edge and the spread between a thread's outputs */
/* 36-float rows: 16-byte aligned for the vector reads, and rows 4 banks apart, so the 4
 * A rows and 8 B rows a warp reads at one k (16 bytes each) hit distinct banks. */
#define CO_LD 36

struct alignas(16) co_f4 {
    float x, y, z, w;
};

/* Stages tile k0: As[m][k] = A[row0 + m][k0 + k] (a warp reads one 128-byte row piece)
 * and Bt[n][k] = B[k0 + k][col0 + n], a warp reading 4 rows x 8 columns so that its
 * transposed stores, bank (4n + k) mod 32, hit 32 distinct banks. */
__device__ __forceinline__ void co_stage(float (*As)[CO_LD], float (*Bt)[CO_LD],
                                         const float *__restrict__ A, const float *__restrict__ B,
                                         int M, int N, int K, int row0, int col0, int k0, int tid)
{
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        int idx = tid + l * 256;
        int m = idx >> 5, k = idx & 31;
        int gm = row0 + m, gk = k0 + k;
        As[m][k] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
        int w = idx >> 5, lane = idx & 31;
        int n = (lane & 7) + 8 * (w & 3), bk = (lane >> 3) + 4 * (w >> 2);
        int hk = k0 + bk, hn = col0 + n;
        Bt[n][bk] = (hk < K && hn < N) ? B[(size_t)hk * N + hn] : 0.0f;
    }
}

/* One k step of the thread's 2 x 2 group. */
__device__ __forceinline__ void co_fma(float acc[2][2], float a0, float a1, float b0, float b1)
{
    acc[0][0] = fmaf(a0, b0, acc[0][0]);
    acc[0][1] = fmaf(a0, b1, acc[0][1]);
    acc[1][0] = fmaf(a1, b0, acc[1][0]);
    acc[1][1] = fmaf(a1, b1, acc[1][1]);
}

/* At most 64 registers: four blocks per SM. */
extern "C" __global__ void __launch_bounds__(256, 4)
    sgemm_coarsened(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                    int M, int N, int K)
{
    alignas(16) __shared__ float As[CO_T][CO_LD];
    alignas(16) __shared__ float Bt[CO_T][CO_LD];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int warp = tid >> 5, lane = tid & 31;
    int tx = (lane & 7) + 8 * (warp & 1), ty = (lane >> 3) + 4 * (warp >> 1);
    int row0 = blockIdx.y * CO_T, col0 = blockIdx.x * CO_T;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};

    for (int k0 = 0; k0 < K; k0 += CO_T) {
        co_stage(As, Bt, A, B, M, N, K, row0, col0, k0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < CO_T; k += 4) {
            co_f4 a0 = *reinterpret_cast<const co_f4 *>(&As[ty][k]);
            co_f4 a1 = *reinterpret_cast<const co_f4 *>(&As[ty + CO_S][k]);
            co_f4 b0 = *reinterpret_cast<const co_f4 *>(&Bt[tx][k]);
            co_f4 b1 = *reinterpret_cast<const co_f4 *>(&Bt[tx + CO_S][k]);
            co_fma(acc, a0.x, a1.x, b0.x, b1.x);
            co_fma(acc, a0.y, a1.y, b0.y, b1.y);
            co_fma(acc, a0.z, a1.z, b0.z, b1.z);
            co_fma(acc, a0.w, a1.w, b0.w, b1.w);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            int r = row0 + ty + i * CO_S, c = col0 + tx + j * CO_S;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
