/* sgemm_coarsened: C = A * B (row-major, fp32) with 64 x 64 shared-memory tiles, 16 k deep,
 * and 16 x 16 threads, each computing a 4 x 4 group of C spread 16 apart (coarsening factor
 * 4), so one staged value feeds four FMAs. Zero-filled edge tiles make any M, N, K >= 0
 * correct. Factor 2 was bound by shared-memory reads (one per FMA, about a third of cuBLAS
 * on the H200); factor 4 halves them. Shared memory is read 4 k at a time with 128-bit loads
 * (A row-major, B transposed), a warp's threads form a 4 x 8 patch of the thread grid, and
 * the next tile's global loads overlap this tile's FMAs (held in registers). No double
 * buffering in shared memory or contiguous register tile: see sgemm_optimized. */
#include <cuda_runtime.h>

#define CO_T 64  /* tile edge (M and N) */
#define CO_BK 16 /* k per tile */
#define CO_F 4   /* coarsening factor: outputs per thread along each of M and N */
#define CO_S 16  /* CO_T / CO_F: thread grid edge and the spread between a thread's outputs */
/* 20-float rows: 16-byte aligned for the vector reads, and row r starting at bank 20r mod 32,
 * so the 4 A rows and 8 B rows a warp reads at one k (16 bytes each) hit distinct banks. */
#define CO_LD 20

struct alignas(16) co_f4 {
    float x, y, z, w;
};

/* Tile k0 in four passes of 256 elements per operand, read into registers so the loads of
 * the next tile are in flight while this one is computed. A's passes: a warp reads two
 * 64-byte row pieces (A[row0 + m][k0 + k]). B's: a warp reads 4 rows x 8 columns
 * (B[k0 + k][col0 + n]), so that co_store's transposed writes, bank (20n + k) mod 32, hit 32
 * distinct banks. Outside the matrices: 0. */
__device__ __forceinline__ void co_load(float a[4], float b[4], const float *__restrict__ A,
                                        const float *__restrict__ B, int M, int N, int K, int row0, int col0,
                                        int k0, int tid)
{
    int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        int idx = tid + l * 256;
        int gm = row0 + (idx >> 4), gk = k0 + (idx & 15);
        a[l] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
        int piece = warp + 8 * l; /* 32 pieces of 8 n x 4 k */
        int hn = col0 + (lane & 7) + 8 * (piece & 7), hk = k0 + (lane >> 3) + 4 * (piece >> 3);
        b[l] = (hk < K && hn < N) ? B[(size_t)hk * N + hn] : 0.0f;
    }
}

/* As[m][k] and Bt[n][k] from what co_load read, at the same positions. */
__device__ __forceinline__ void co_store(float (*As)[CO_LD], float (*Bt)[CO_LD], const float a[4],
                                         const float b[4], int tid)
{
    int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        int idx = tid + l * 256;
        As[idx >> 4][idx & 15] = a[l];
        int piece = warp + 8 * l;
        Bt[(lane & 7) + 8 * (piece & 7)][(lane >> 3) + 4 * (piece >> 3)] = b[l];
    }
}

/* Component c of v; c is a constant once the loops are unrolled. */
__device__ __forceinline__ float co_part(const co_f4 &v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

/* One k step of the thread's 4 x 4 group. */
__device__ __forceinline__ void co_fma(float acc[CO_F][CO_F], const float a[CO_F], const float b[CO_F])
{
#pragma unroll
    for (int i = 0; i < CO_F; ++i) {
#pragma unroll
        for (int j = 0; j < CO_F; ++j)
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* At most 80 registers: three blocks per SM. ptxas then spills 16 bytes, and this is still
 * faster than 128 registers at two blocks (H200, 4096^3: 49% against 45% of cuBLAS). */
extern "C" __global__ void __launch_bounds__(256, 3)
    sgemm_coarsened(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                    int M, int N, int K)
{
    alignas(16) __shared__ float As[CO_T][CO_LD];
    alignas(16) __shared__ float Bt[CO_T][CO_LD];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int warp = tid >> 5, lane = tid & 31;
    int tx = (lane & 7) + 8 * (warp & 1), ty = (lane >> 3) + 4 * (warp >> 1);
    int row0 = blockIdx.y * CO_T, col0 = blockIdx.x * CO_T;
    float acc[CO_F][CO_F] = {};

    float next_a[4], next_b[4];
    co_load(next_a, next_b, A, B, M, N, K, row0, col0, 0, tid);
    for (int k0 = 0; k0 < K; k0 += CO_BK) {
        co_store(As, Bt, next_a, next_b, tid);
        __syncthreads();
        if (k0 + CO_BK < K)
            co_load(next_a, next_b, A, B, M, N, K, row0, col0, k0 + CO_BK, tid);
#pragma unroll
        for (int k = 0; k < CO_BK; k += 4) {
            co_f4 a4[CO_F], b4[CO_F];
#pragma unroll
            for (int i = 0; i < CO_F; ++i) {
                a4[i] = *reinterpret_cast<const co_f4 *>(&As[ty + i * CO_S][k]);
                b4[i] = *reinterpret_cast<const co_f4 *>(&Bt[tx + i * CO_S][k]);
            }
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                float a[CO_F], b[CO_F];
#pragma unroll
                for (int i = 0; i < CO_F; ++i)
                    a[i] = co_part(a4[i], c), b[i] = co_part(b4[i], c);
                co_fma(acc, a, b);
            }
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
