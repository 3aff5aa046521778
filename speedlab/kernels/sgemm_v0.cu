/* sl_sgemm_v0: the shipped cuda/sgemm_optimized before issue 15, kept as the baseline.
 * C = A * B (row-major, fp32) with a 128 x 128 block tile, BK = 8,
 * and 256 threads (16 x 16) each holding an 8 x 8 piece of C in registers. A is
 * stored transposed in shared memory so a thread's 8 A values are contiguous.
 * Every load and store is bounds-checked (any M, N, K >= 0) and the k index never
 * leaves [0, BK). No double buffering, no vector types, no warp tiling. */
#include <cuda_runtime.h>

#define V0O_BM 128
#define V0O_BN 128
#define V0O_BK 8
#define V0O_TM 8
#define V0O_TN 8
/* Rows padded by 4 rather than 1: with the A-load mapping below (k = idx & 7,
 * m = idx >> 3) a 132-float row puts the 32 stores of a warp in 32 distinct banks
 * ((4k + m) mod 32), where 129 would leave 4-way conflicts; 132 also keeps each
 * row 16-byte aligned so the compiler may fuse the 4 contiguous reads. */
#define V0O_PAD 4

extern "C" __global__ void sl_sgemm_v0(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[V0O_BK][V0O_BM + V0O_PAD]; /* As[k][m] = A[m][k]: transposed */
    __shared__ float Bs[V0O_BK][V0O_BN + V0O_PAD];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * 16 + tx;
    int row0 = blockIdx.y * V0O_BM, col0 = blockIdx.x * V0O_BN;
    float acc[V0O_TM][V0O_TN];
#pragma unroll
    for (int i = 0; i < V0O_TM; ++i) {
#pragma unroll
        for (int j = 0; j < V0O_TN; ++j)
            acc[i][j] = 0.0f;
    }

    for (int k0 = 0; k0 < K; k0 += V0O_BK) {
        /* 1024 elements per tile, 4 per thread. A: k fastest so a warp reads four
         * 32-byte row pieces; B: n fastest so a warp reads 128 contiguous bytes. */
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            int idx = tid + l * 256;
            int am = idx >> 3, ak = idx & 7;
            int gm = row0 + am, gk = k0 + ak;
            As[ak][am] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
            int bk = idx >> 7, bn = idx & 127;
            int hk = k0 + bk, hn = col0 + bn;
            Bs[bk][bn] = (hk < K && hn < N) ? B[(size_t)hk * N + hn] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < V0O_BK; ++k) {
            float a[V0O_TM], b[V0O_TN];
            /* Thread rows ty*8 .. ty*8+7 (a warp reads 2 addresses: broadcast);
             * columns tx*4 .. +3 and 64 + tx*4 .. +3 (16 distinct 16-byte pieces). */
#pragma unroll
            for (int i = 0; i < V0O_TM; ++i)
                a[i] = As[k][ty * V0O_TM + i];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                b[j] = Bs[k][tx * 4 + j];
                b[4 + j] = Bs[k][64 + tx * 4 + j];
            }
#pragma unroll
            for (int i = 0; i < V0O_TM; ++i) {
#pragma unroll
                for (int j = 0; j < V0O_TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < V0O_TM; ++i) {
        int r = row0 + ty * V0O_TM + i;
        if (r >= M)
            continue;
#pragma unroll
        for (int j = 0; j < V0O_TN; ++j) {
            int c = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
            if (c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
