/* sgemm_opt.cuh: the candidate bodies of cuda/sgemm_optimized, as one template so that the
 * variants differ only in the knobs named below. All keep the brief's design: 128 x 128
 * block tile, BK = 8, 256 threads, 8 x 8 outputs per thread, A transposed in shared
 * memory, rows padded. All are correct for any M, N, K >= 0 and any pointer alignment.
 * Compiles with nvcc and with the CPU emulator's prelude (no inline PTX on that path). */
#ifndef SL_SGEMM_OPT_CUH
#define SL_SGEMM_OPT_CUH
#include <cuda_runtime.h>

#define SL_BM 128
#define SL_BN 128
#define SL_BK 8
/* 132-float rows: 16-byte aligned for the vector reads, and the transposed A stores
 * (4 k x 16 m per warp) land in 32 distinct banks. */
#define SL_LD 132

struct alignas(16) sl_f4 {
    float x, y, z, w;
};

/* Four consecutive floats p[0..3] whose column c .. c+3 must stay below lim and whose row
 * is valid when row_ok. vec: the pointer is 16-byte aligned and the row length a multiple
 * of 4, so c is a multiple of 4 and the four are all in or all out: one 128-bit load.
 * Otherwise each float is checked and loaded alone (odd sizes, unaligned rows). */
__device__ __forceinline__ sl_f4 sl_load4(const float *__restrict__ p, bool vec, bool row_ok,
                                          int c, int lim)
{
    sl_f4 v = {0.0f, 0.0f, 0.0f, 0.0f};
    if (vec) {
        if (row_ok && c < lim)
            v = *reinterpret_cast<const sl_f4 *>(p);
    } else if (row_ok) {
        if (c < lim)
            v.x = p[0];
        if (c + 1 < lim)
            v.y = p[1];
        if (c + 2 < lim)
            v.z = p[2];
        if (c + 3 < lim)
            v.w = p[3];
    }
    return v;
}

/* Thread layout of the 8 x 8 outputs: rows rm + {0..3} and rm + RH + {0..3}, columns
 * cn + {0..3} and cn + CH + {0..3}, so every fragment read is a 128-bit shared load.
 * WARPTILE: each warp owns a 32 x 64 piece of C (lanes 4 x 8), so a warp's fragment
 * reads touch 4 A and 8 B vectors (one wavefront each). Otherwise the plain 16 x 16 grid
 * (rows ty*4, +64; columns tx*4, +64): 16 B vectors per warp, two wavefronts. */
template <bool WARPTILE> struct sl_map {
    static constexpr int RH = WARPTILE ? 16 : 64;
    static constexpr int CH = WARPTILE ? 32 : 64;
    __device__ __forceinline__ static void at(int tid, int &rm, int &cn)
    {
        if (WARPTILE) {
            int warp = tid >> 5, lane = tid & 31;
            rm = (warp >> 1) * 32 + (lane >> 3) * 4;
            cn = (warp & 1) * 64 + (lane & 7) * 4;
        } else {
            rm = (tid >> 4) * 4;
            cn = (tid & 15) * 4;
        }
    }
};

/* Loads tile k0 into registers: A[row0 + (tid>>1)][k0 + (tid&1)*4 ..+3] and
 * B[k0 + (tid>>5)][col0 + (tid&31)*4 ..+3]: 1024 floats of each, four per thread. */
struct sl_stage {
    sl_f4 a, b;
};
__device__ __forceinline__ void sl_fetch(sl_stage &s, const float *__restrict__ A,
                                         const float *__restrict__ B, int M, int N, int K, int row0,
                                         int col0, int k0, int tid, bool vecA, bool vecB)
{
    int am = row0 + (tid >> 1), ak = k0 + (tid & 1) * 4;
    s.a = sl_load4(A + (size_t)am * K + ak, vecA, am < M, ak, K);
    int bk = k0 + (tid >> 5), bn = col0 + (tid & 31) * 4;
    s.b = sl_load4(B + (size_t)bk * N + bn, vecB, bk < K, bn, N);
}

/* A goes in transposed (As[k][m]): four 32-bit stores; B as is: one 128-bit store. */
__device__ __forceinline__ void sl_put(const sl_stage &s, float (*As)[SL_LD], float (*Bs)[SL_LD],
                                       int tid)
{
    int am = tid >> 1, ak = (tid & 1) * 4;
    As[ak + 0][am] = s.a.x;
    As[ak + 1][am] = s.a.y;
    As[ak + 2][am] = s.a.z;
    As[ak + 3][am] = s.a.w;
    *reinterpret_cast<sl_f4 *>(&Bs[tid >> 5][(tid & 31) * 4]) = s.b;
}

template <bool WARPTILE>
__device__ __forceinline__ void sl_frag(float a[8], float b[8], float (*As)[SL_LD],
                                        float (*Bs)[SL_LD], int k, int rm, int cn)
{
    typedef sl_map<WARPTILE> L;
    sl_f4 a0 = *reinterpret_cast<const sl_f4 *>(&As[k][rm]);
    sl_f4 a1 = *reinterpret_cast<const sl_f4 *>(&As[k][rm + L::RH]);
    sl_f4 b0 = *reinterpret_cast<const sl_f4 *>(&Bs[k][cn]);
    sl_f4 b1 = *reinterpret_cast<const sl_f4 *>(&Bs[k][cn + L::CH]);
    a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w;
    a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
    b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
    b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
}

__device__ __forceinline__ void sl_fma(float acc[8][8], const float a[8], const float b[8])
{
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* C rows r, four columns c..c+3 from acc row i, half h; 128-bit store when vecC. */
template <bool WARPTILE>
__device__ __forceinline__ void sl_store(float *__restrict__ C, const float acc[8][8], int M,
                                         int N, int row0, int col0, int rm, int cn, bool vecC)
{
    typedef sl_map<WARPTILE> L;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int r = row0 + rm + (i < 4 ? i : L::RH + i - 4);
        if (r >= M)
            continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int c = col0 + cn + h * L::CH;
            float *p = C + (size_t)r * N + c;
            const float *v = &acc[i][h * 4];
            if (vecC) {
                if (c < N)
                    *reinterpret_cast<sl_f4 *>(p) = sl_f4{v[0], v[1], v[2], v[3]};
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (c + j < N)
                        p[j] = v[j];
            }
        }
    }
}

__device__ __forceinline__ bool sl_aligned16(const void *p)
{
    return (reinterpret_cast<size_t>(p) & 15) == 0;
}

/* One k tile of the pipelined body, on shared-memory stage `cur` (a literal where the
 * caller unrolls by two, so the stage addresses fold into immediates). While the block
 * computes on one stage, the next tile's global loads are already in flight into
 * registers (issued here, at the top), and land in the other stage after the 7th k step:
 * one barrier per tile. FRAGDB: the fragments of step k+1 are read from shared memory
 * before the FMAs of step k (two register sets), so a warp need not wait for its own
 * shared loads. */
template <bool WARPTILE, bool FRAGDB>
__device__ __forceinline__ void sl_tile(float acc[8][8], float fa[2][8], float fb[2][8], sl_stage &st,
                                        float (*As)[SL_BK][SL_LD], float (*Bs)[SL_BK][SL_LD],
                                        int cur, int t, int ntiles, const float *__restrict__ A,
                                        const float *__restrict__ B, int M, int N, int K, int row0,
                                        int col0, int tid, int rm, int cn, bool vecA, bool vecB)
{
    bool more = t + 1 < ntiles; /* the same in every thread: the barrier below is safe */
    if (more)
        sl_fetch(st, A, B, M, N, K, row0, col0, (t + 1) * SL_BK, tid, vecA, vecB);
#pragma unroll
    for (int k = 0; k < SL_BK; ++k) {
        if (FRAGDB) {
            if (k < SL_BK - 1) {
                sl_frag<WARPTILE>(fa[(k + 1) & 1], fb[(k + 1) & 1], As[cur], Bs[cur], k + 1, rm, cn);
            } else if (more) {
                /* The other stage was last read before the previous barrier. */
                sl_put(st, As[cur ^ 1], Bs[cur ^ 1], tid);
                __syncthreads();
                sl_frag<WARPTILE>(fa[0], fb[0], As[cur ^ 1], Bs[cur ^ 1], 0, rm, cn);
            }
            sl_fma(acc, fa[k & 1], fb[k & 1]);
        } else {
            sl_frag<WARPTILE>(fa[0], fb[0], As[cur], Bs[cur], k, rm, cn);
            sl_fma(acc, fa[0], fb[0]);
        }
    }
    if (!FRAGDB && more) {
        sl_put(st, As[cur ^ 1], Bs[cur ^ 1], tid);
        __syncthreads();
    }
}

/* The whole kernel body. UNROLL2: the tile loop unrolled by two so each copy has its
 * stage as a constant. */
template <bool WARPTILE, bool FRAGDB, bool UNROLL2>
__device__ __forceinline__ void sl_sgemm_db(const float *__restrict__ A, const float *__restrict__ B,
                                            float *__restrict__ C, int M, int N, int K)
{
    alignas(16) __shared__ float As[2][SL_BK][SL_LD];
    alignas(16) __shared__ float Bs[2][SL_BK][SL_LD];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * SL_BM, col0 = blockIdx.x * SL_BN;
    bool vecA = sl_aligned16(A) && (K & 3) == 0;
    bool vecB = sl_aligned16(B) && (N & 3) == 0;
    bool vecC = sl_aligned16(C) && (N & 3) == 0;
    int rm, cn;
    sl_map<WARPTILE>::at(tid, rm, cn);

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;
    }
    int ntiles = (K + SL_BK - 1) / SL_BK;
    sl_stage st;
    if (ntiles > 0) {
        sl_fetch(st, A, B, M, N, K, row0, col0, 0, tid, vecA, vecB);
        sl_put(st, As[0], Bs[0], tid);
    }
    __syncthreads();
    float fa[2][8], fb[2][8];
    if (FRAGDB && ntiles > 0)
        sl_frag<WARPTILE>(fa[0], fb[0], As[0], Bs[0], 0, rm, cn);
    if (UNROLL2) {
        for (int t = 0; t < ntiles; t += 2) {
            sl_tile<WARPTILE, FRAGDB>(acc, fa, fb, st, As, Bs, 0, t, ntiles, A, B, M, N, K, row0,
                                      col0, tid, rm, cn, vecA, vecB);
            if (t + 1 < ntiles)
                sl_tile<WARPTILE, FRAGDB>(acc, fa, fb, st, As, Bs, 1, t + 1, ntiles, A, B, M, N, K,
                                          row0, col0, tid, rm, cn, vecA, vecB);
        }
    } else {
        for (int t = 0; t < ntiles; ++t)
            sl_tile<WARPTILE, FRAGDB>(acc, fa, fb, st, As, Bs, t & 1, t, ntiles, A, B, M, N, K,
                                      row0, col0, tid, rm, cn, vecA, vecB);
    }
    sl_store<WARPTILE>(C, acc, M, N, row0, col0, rm, cn, vecC);
}

#endif
