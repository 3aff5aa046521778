#include <hip/hip_runtime.h>
/* sgemm_optimized (HIP port): C = A * B (row-major fp32), block tile 128 x 128, BK = 8, 256
 * threads (16 x 16) each accumulating an 8 x 8 block of C in registers. A is stored transposed
 * in LDS (As[k][m]) so the inner loop reads a column of A as a row; rows padded by one float.
 * Every index into As/Bs stays below BK by construction (k = e & 7 or e >> 7 with e < 1024),
 * and every global load and store is bounds-checked: any M, N, K >= 0. No double buffering,
 * no vector loads: it is the article's kernel made safe, not a rocBLAS rival.
 * __launch_bounds__(NTHREADS): without it HIP-Clang budgets registers for 1024-thread blocks
 * (128 VGPRs on CDNA) and spills ~66 of the 8x8 accumulator tile's registers to scratch. */

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NTHREADS 256
/* elements of each 128 x 8 (A) and 8 x 128 (B) tile that one thread stages */
#define LOADS ((BM * BK) / NTHREADS)

extern "C" __global__ void __launch_bounds__(NTHREADS)
    sgemm_optimized(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                    int M, int N, int K)
{
    /* +1 on the A rows: the transposing store walks down As in steps of one row, which
     * without padding would land 8 lanes on the same bank */
    __shared__ float As[BK][BM + 1];
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * 16 + tx;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < LOADS; ++l) {
            int e = tid + l * NTHREADS; /* 0 .. 1023 */
            int am = e >> 3, ak = e & (BK - 1);  /* A tile: 128 rows of 8 */
            int bk = e >> 7, bnn = e & (BN - 1); /* B tile: 8 rows of 128 */
            int ar = bm + am, ac = k0 + ak;
            int br = k0 + bk, bc = bn + bnn;
            As[ak][am] = (ar < M && ac < K) ? A[(size_t)ar * K + ac] : 0.0f;
            Bs[bk][bnn] = (br < K && bc < N) ? B[(size_t)br * N + bc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a[i] = As[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                b[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int r = bm + ty * TM + i;
        if (r >= M)
            break;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int c = bn + tx * TN + j;
            if (c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
