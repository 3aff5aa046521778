/* sgemm_optimized: C = A * B (row-major, fp32) with a 128 x 128 block tile, BK = 8, and
 * 256 threads each holding an 8 x 8 piece of C in registers; A is stored transposed in
 * padded shared memory. On top of the brief's design: two shared-memory stages with the
 * next tile's global loads in flight in registers (one barrier per tile), fragments read
 * one k step ahead, 128-bit loads and stores where alignment allows, and warp tiles.
 * Every access is bounds-checked (any M, N, K >= 0, any pointer alignment). */
#include <cuda_runtime.h>

#define OP_BM 128
#define OP_BN 128
#define OP_BK 8
/* 132-float rows: the transposed A stores of a warp (4 k x 16 m) land in 32 distinct
 * banks ((4k + m) mod 32, where a 129-float row would leave conflicts), and rows stay
 * 16-byte aligned for the 128-bit fragment reads. */
#define OP_LD 132

struct alignas(16) op_f4 {
    float x, y, z, w;
};

/* The four floats p[0..3], in columns c .. c+3 of a row that exists when row_ok; those at
 * or past lim read as 0. vec: p's row is 16-byte aligned and lim a multiple of 4, so c
 * (a multiple of 4) has all four in or all out: one 128-bit load. Otherwise one float at
 * a time (odd sizes, unaligned rows). */
__device__ __forceinline__ op_f4 op_load4(const float *__restrict__ p, bool vec, bool row_ok, int c,
                                          int lim)
{
    op_f4 v = {0.0f, 0.0f, 0.0f, 0.0f};
    if (vec) {
        if (row_ok && c < lim)
            v = *reinterpret_cast<const op_f4 *>(p);
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

/* Where this thread's four floats of A and of B come from, tile after tile: A[row0 +
 * tid/2][k + (tid%2)*4 ..] (a warp reads 16 rows x 32 bytes) and B[k + tid/32][col0 +
 * (tid%32)*4 ..] (a warp reads 512 contiguous bytes). Rows and columns are fixed, so the
 * loop only steps the pointers and the k indices (no index arithmetic per tile). */
struct op_cursor {
    const float *a, *b;
    int ak, bk;       /* the k of a and b in the current tile */
    bool a_row_ok;    /* row0 + tid/2 < M */
    int bn;           /* col0 + (tid%32)*4 */
    size_t b_step;    /* OP_BK rows of B */
};

__device__ __forceinline__ op_cursor op_cursor_at(const float *__restrict__ A, const float *__restrict__ B,
                                                  int M, int N, int K, int row0, int col0, int tid)
{
    op_cursor c;
    int am = row0 + (tid >> 1);
    c.ak = (tid & 1) * 4;
    c.a = A + (size_t)am * K + c.ak;
    c.a_row_ok = am < M;
    c.bk = tid >> 5;
    c.bn = col0 + (tid & 31) * 4;
    c.b = B + (size_t)c.bk * N + c.bn;
    c.b_step = (size_t)OP_BK * N;
    return c;
}

/* The cursor's tile into registers, then the cursor on to the next tile. */
__device__ __forceinline__ void op_fetch(op_f4 &a, op_f4 &b, op_cursor &c, int N, int K, bool vecA,
                                         bool vecB)
{
    a = op_load4(c.a, vecA, c.a_row_ok, c.ak, K);
    b = op_load4(c.b, vecB, c.bk < K, c.bn, N);
    c.a += OP_BK, c.ak += OP_BK;
    c.b += c.b_step, c.bk += OP_BK;
}

/* Registers into one shared stage: A transposed (four 32-bit stores), B as it is. */
__device__ __forceinline__ void op_put(const op_f4 &a, const op_f4 &b, float (*As)[OP_LD],
                                       float (*Bs)[OP_LD], int tid)
{
    int am = tid >> 1, ak = (tid & 1) * 4;
    As[ak + 0][am] = a.x;
    As[ak + 1][am] = a.y;
    As[ak + 2][am] = a.z;
    As[ak + 3][am] = a.w;
    *reinterpret_cast<op_f4 *>(&Bs[tid >> 5][(tid & 31) * 4]) = b;
}

/* Warp tiles: warp w owns rows (w/2)*32 .. +31 and columns (w%2)*64 .. +63 of the block
 * tile, its lanes a 4 x 8 grid; a thread's 8 x 8 is rows rm + {0..3, 16..19} by columns
 * cn + {0..3, 32..35}. So a fragment is four 128-bit shared loads, and a warp's loads of
 * one k touch 4 distinct A vectors (broadcast) and 8 contiguous B vectors: no conflicts. */
#define OP_RH 16
#define OP_CH 32
__device__ __forceinline__ void op_frag(float a[8], float b[8], float (*As)[OP_LD],
                                        float (*Bs)[OP_LD], int k, int rm, int cn)
{
    op_f4 a0 = *reinterpret_cast<const op_f4 *>(&As[k][rm]);
    op_f4 a1 = *reinterpret_cast<const op_f4 *>(&As[k][rm + OP_RH]);
    op_f4 b0 = *reinterpret_cast<const op_f4 *>(&Bs[k][cn]);
    op_f4 b1 = *reinterpret_cast<const op_f4 *>(&Bs[k][cn + OP_CH]);
    a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w;
    a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
    b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
    b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
}

__device__ __forceinline__ void op_fma(float acc[8][8], const float a[8], const float b[8])
{
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* Rows and columns past M and N are not written; 128-bit stores when C's rows allow. */
__device__ __forceinline__ void op_store(float *__restrict__ C, const float acc[8][8], int M, int N,
                                         int row0, int col0, int rm, int cn, bool vecC)
{
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int r = row0 + rm + (i < 4 ? i : OP_RH + i - 4);
        if (r >= M)
            continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int c = col0 + cn + h * OP_CH;
            float *p = C + (size_t)r * N + c;
            const float *v = &acc[i][h * 4];
            if (vecC) {
                if (c < N)
                    *reinterpret_cast<op_f4 *>(p) = op_f4{v[0], v[1], v[2], v[3]};
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (c + j < N)
                        p[j] = v[j];
            }
        }
    }
}

__device__ __forceinline__ bool op_aligned16(const void *p)
{
    return (reinterpret_cast<size_t>(p) & 15) == 0;
}

/* At most 128 registers, so that two blocks (16 warps) share an SM. */
extern "C" __global__ void __launch_bounds__(256, 2)
    sgemm_optimized(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                    int M, int N, int K)
{
    alignas(16) __shared__ float As[2][OP_BK][OP_LD]; /* As[s][k][m] = A[row0 + m][k0 + k] */
    alignas(16) __shared__ float Bs[2][OP_BK][OP_LD]; /* Bs[s][k][n] = B[k0 + k][col0 + n] */
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * OP_BM, col0 = blockIdx.x * OP_BN;
    /* Uniform over the grid: the vector paths need 16-byte rows. */
    bool vecA = op_aligned16(A) && (K & 3) == 0;
    bool vecB = op_aligned16(B) && (N & 3) == 0;
    bool vecC = op_aligned16(C) && (N & 3) == 0;
    int warp = tid >> 5, lane = tid & 31;
    int rm = (warp >> 1) * 32 + (lane >> 3) * 4, cn = (warp & 1) * 64 + (lane & 7) * 4;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;
    }
    int ntiles = (K + OP_BK - 1) / OP_BK;
    op_cursor src = op_cursor_at(A, B, M, N, K, row0, col0, tid);
    op_f4 ga, gb; /* the next tile, on its way from global memory */
    float fa[2][8], fb[2][8];
    if (ntiles > 0) {
        op_fetch(ga, gb, src, N, K, vecA, vecB);
        op_put(ga, gb, As[0], Bs[0], tid);
    }
    __syncthreads();
    if (ntiles > 0)
        op_frag(fa[0], fb[0], As[0], Bs[0], 0, rm, cn);
    for (int t = 0; t < ntiles; ++t) {
        int cur = t & 1;
        bool more = t + 1 < ntiles; /* the same in every thread: the barrier below is safe */
        if (more)
            op_fetch(ga, gb, src, N, K, vecA, vecB);
#pragma unroll
        for (int k = 0; k < OP_BK; ++k) {
            /* Read step k+1's fragments before step k's FMAs use the other set. */
            if (k < OP_BK - 1) {
                op_frag(fa[(k + 1) & 1], fb[(k + 1) & 1], As[cur], Bs[cur], k + 1, rm, cn);
            } else if (more) {
                /* The other stage was last read before the previous barrier. */
                op_put(ga, gb, As[cur ^ 1], Bs[cur ^ 1], tid);
                __syncthreads();
                op_frag(fa[0], fb[0], As[cur ^ 1], Bs[cur ^ 1], 0, rm, cn);
            }
            op_fma(acc, fa[k & 1], fb[k & 1]);
        }
    }
    op_store(C, acc, M, N, row0, col0, rm, cn, vecC);
}
