/* coarsened_variants.cu: candidate sgemm_coarsened kernels (harness sgemm ABI). Still the
 * brief's form: shared-memory tiles, each thread a 2 x 2 group of C spread T/2 apart
 * (coarsening factor 2). What changes is how shared memory is read: A row-major and B
 * transposed, both with 36-float rows, so a thread reads 4 consecutive k of each operand
 * with one 128-bit load; and the lanes of a warp form a 4 x 8 patch of threads, so a warp's
 * reads touch 4 A rows and 8 B columns (one wavefront each). T = 32 runs 16 x 16 threads
 * (grid ceil(N/32) x ceil(M/32)), T = 64 runs 32 x 32 (grid ceil(N/64) x ceil(M/64)). */
#include <cuda_runtime.h>

#define SC_BK 32 /* k per tile */
#define SC_LD 36 /* row length in shared memory: 16-byte rows, rows 4 banks apart */

struct alignas(16) sc_f4 {
    float x, y, z, w;
};

/* SHFL_B: B reaches the threads by warp shuffles instead of shared-memory reads. Round 1
 * put every form at ~31% of cuBLAS: a 2 x 2 thread needs one float from shared memory per
 * FMA, and shared memory delivers 32 floats per clock per SM against 128 FMA lanes, so 25%
 * of the fp32 peak (~33% of cuBLAS) is the roofline when every operand comes through it.
 * Shuffles may be a separate path: per 4 k a warp then reads 10 wavefronts of shared
 * memory instead of 16, and issues 8 shuffles. Written for 32-lane warps (widths = 32). */
template <int T, bool SHFL_B> __device__ __forceinline__ void sc_sgemm(const float *__restrict__ A, const float *__restrict__ B,
                                                          float *__restrict__ C, int M, int N, int K)
{
    constexpr int S = T / 2;          /* thread grid edge, and the spread of a thread's 2 x 2 */
    constexpr int THREADS = S * S;
    alignas(16) __shared__ float As[T][SC_LD]; /* As[m][k] */
    alignas(16) __shared__ float Bt[T][SC_LD]; /* Bt[n][k] = B[k][n] */
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int warp = tid >> 5, lane = tid & 31;
    int tx = (lane & 7) + 8 * (warp % (S / 8)); /* a warp: 8 columns x 4 rows of threads */
    int ty = (lane >> 3) + 4 * (warp / (S / 8));
    int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};

    for (int k0 = 0; k0 < K; k0 += SC_BK) {
        /* A: consecutive threads along k (128-byte rows), stored as read. */
#pragma unroll
        for (int l = 0; l < T * SC_BK / THREADS; ++l) {
            int idx = tid + l * THREADS;
            int m = idx / SC_BK, k = idx % SC_BK;
            int gm = row0 + m, gk = k0 + k;
            As[m][k] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
        }
        /* B: a warp reads 8 columns x 4 rows (32-byte pieces) so that its transposed
         * stores, bank (4n + k) mod 32, hit 32 distinct banks. */
#pragma unroll
        for (int l = 0; l < T * SC_BK / THREADS; ++l) {
            int w = (tid + l * THREADS) >> 5;
            int n = (lane & 7) + 8 * (w % (T / 8)), k = (lane >> 3) + 4 * (w / (T / 8));
            int gk = k0 + k, gn = col0 + n;
            Bt[n][k] = (gk < K && gn < N) ? B[(size_t)gk * N + gn] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; SHFL_B && k < SC_BK; k += 4) {
            sc_f4 a0 = *reinterpret_cast<const sc_f4 *>(&As[ty][k]);
            sc_f4 a1 = *reinterpret_cast<const sc_f4 *>(&As[ty + S][k]);
            /* Lane (ly, lx) = (lane / 8, lane % 8) holds B[k + ly] at its two columns; the
             * lane with ly = j and the same lx holds step j's (banks 4 lx + ly + k: distinct). */
            float v0 = Bt[tx][k + (lane >> 3)], v1 = Bt[tx + S][k + (lane >> 3)];
            const float *pa0 = &a0.x, *pa1 = &a1.x;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                float b0 = __shfl_sync(0xffffffffu, v0, j * 8 + (lane & 7));
                float b1 = __shfl_sync(0xffffffffu, v1, j * 8 + (lane & 7));
                acc[0][0] = fmaf(pa0[j], b0, acc[0][0]);
                acc[0][1] = fmaf(pa0[j], b1, acc[0][1]);
                acc[1][0] = fmaf(pa1[j], b0, acc[1][0]);
                acc[1][1] = fmaf(pa1[j], b1, acc[1][1]);
            }
        }
#pragma unroll
        for (int k = 0; !SHFL_B && k < SC_BK; k += 4) {
            sc_f4 a0 = *reinterpret_cast<const sc_f4 *>(&As[ty][k]);
            sc_f4 a1 = *reinterpret_cast<const sc_f4 *>(&As[ty + S][k]);
            sc_f4 b0 = *reinterpret_cast<const sc_f4 *>(&Bt[tx][k]);
            sc_f4 b1 = *reinterpret_cast<const sc_f4 *>(&Bt[tx + S][k]);
            const float *pa0 = &a0.x, *pa1 = &a1.x, *pb0 = &b0.x, *pb1 = &b1.x;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                acc[0][0] = fmaf(pa0[j], pb0[j], acc[0][0]);
                acc[0][1] = fmaf(pa0[j], pb1[j], acc[0][1]);
                acc[1][0] = fmaf(pa1[j], pb0[j], acc[1][0]);
                acc[1][1] = fmaf(pa1[j], pb1[j], acc[1][1]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            int r = row0 + ty + i * S, c = col0 + tx + j * S;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

/* c32: T = 32, 16 x 16 threads, at most 64 registers (4 blocks per SM). */
extern "C" __global__ void __launch_bounds__(256, 4)
    sl_co_c32(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
              int N, int K)
{
    sc_sgemm<32, false>(A, B, C, M, N, K);
}

/* c64: T = 64, 32 x 32 threads: half the global/L2 traffic per FMA of c32. */
extern "C" __global__ void __launch_bounds__(1024)
    sl_co_c64(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
              int N, int K)
{
    sc_sgemm<64, false>(A, B, C, M, N, K);
}

/* sh: c32 with B by shuffles (SHFL_B above). */
extern "C" __global__ void __launch_bounds__(256, 4)
    sl_co_sh(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
             int N, int K)
{
    sc_sgemm<32, true>(A, B, C, M, N, K);
}
