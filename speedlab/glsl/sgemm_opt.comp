// sgemm_opt.comp: the candidates of glsl/sgemm_optimized, chosen at pipeline creation by
// specialization constants 3 (WARPTILE) and 4 (FRAGDB), both true by default (what the
// harness runs, as it sets only 0..2, the local size). The brief's design
// (128 x 128 block tile, BK = 8, 256 invocations each computing 8 x 8, A transposed in
// padded shared memory) plus: two shared stages with the next tile's global loads held in
// registers (one barrier per tile), vec4 global loads/stores where rows allow, vec4 shared
// reads, warp tiles, fragments read a k step ahead. Correct for any M, N, K and any
// subgroup size; written for exactly 256 invocations; grid ceil(N/128) x ceil(M/128).
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool WARPTILE = true; // warp tiles, else the plain 16 x 16 grid
layout(constant_id = 4) const bool FRAGDB = true;   // fragments read one k step ahead

// Each buffer twice: as floats (odd sizes) and as vec4s (rows a multiple of 4 floats). The
// vec4 views assume 16-byte aligned bindings: the harness binds at 4096-byte offsets.
layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufA4 { vec4 a4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB4 { vec4 b4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC4 { vec4 c4[]; };
layout(push_constant) uniform Dims { int M; int N; int K; } p;

const uint BM = 128u, BN = 128u, BK = 8u;
// Rows of 132 floats (33 vec4): the transposed A stores of 32 invocations (4 k x 16 m)
// land in 32 distinct banks, and every row starts on a 16-byte boundary.
const uint LD4 = 33u;
shared vec4 As[2][BK][LD4]; // As[s][k][m / 4][m % 4] = A[bm + m][k0 + k]
shared vec4 Bs[2][BK][LD4]; // Bs[s][k][n / 4][n % 4] = B[k0 + k][bn + n]

// A thread's second halves, in vec4s: rows +16 and columns +32 with warp tiles, else +64.
const uint RH = WARPTILE ? 4u : 16u, CH = WARPTILE ? 8u : 16u;

uint M, N, K, tid, bm, bn;
bool vecA, vecB;
vec4 ga, gb; // the next tile, on its way from global memory

vec4 load4A(uint r, uint k)
{
    if (r >= M)
        return vec4(0.0);
    if (vecA)
        return k < K ? a4[(r * K + k) / 4u] : vec4(0.0);
    uint i = r * K + k;
    return vec4(k < K ? a[i] : 0.0, k + 1u < K ? a[i + 1u] : 0.0, k + 2u < K ? a[i + 2u] : 0.0,
                k + 3u < K ? a[i + 3u] : 0.0);
}

vec4 load4B(uint k, uint n)
{
    if (k >= K)
        return vec4(0.0);
    if (vecB)
        return n < N ? b4[(k * N + n) / 4u] : vec4(0.0);
    uint i = k * N + n;
    return vec4(n < N ? b[i] : 0.0, n + 1u < N ? b[i + 1u] : 0.0, n + 2u < N ? b[i + 2u] : 0.0,
                n + 3u < N ? b[i + 3u] : 0.0);
}

// A[bm + tid/2][k0 + (tid%2)*4 ..] and B[k0 + tid/32][bn + (tid%32)*4 ..].
void fetch(uint k0)
{
    ga = load4A(bm + (tid >> 1u), k0 + (tid & 1u) * 4u);
    gb = load4B(k0 + (tid >> 5u), bn + (tid & 31u) * 4u);
}

void put(uint s)
{
    uint m = tid >> 1u, k = (tid & 1u) * 4u;
    As[s][k][m >> 2u][m & 3u] = ga.x;
    As[s][k + 1u][m >> 2u][m & 3u] = ga.y;
    As[s][k + 2u][m >> 2u][m & 3u] = ga.z;
    As[s][k + 3u][m >> 2u][m & 3u] = ga.w;
    Bs[s][tid >> 5u][tid & 31u] = gb;
}

void main()
{
    M = uint(p.M), N = uint(p.N), K = uint(p.K);
    tid = gl_LocalInvocationIndex;
    bm = gl_WorkGroupID.y * BM, bn = gl_WorkGroupID.x * BN;
    vecA = (K & 3u) == 0u;
    vecB = (N & 3u) == 0u;
    // Warp w: rows (w/2)*32.., columns (w%2)*64..; its 32 lanes a 4 x 8 grid (in vec4s).
    uint w = tid >> 5u, l = tid & 31u;
    uint rm4 = WARPTILE ? (w >> 1u) * 8u + (l >> 3u) : tid >> 4u;
    uint cn4 = WARPTILE ? (w & 1u) * 16u + (l & 7u) : tid & 15u;
    vec4 acc[8][2];
    [[unroll]] for (uint i = 0u; i < 8u; ++i)
        acc[i][0] = acc[i][1] = vec4(0.0);
    uint ntiles = (K + BK - 1u) / BK;
    if (ntiles > 0u) {
        fetch(0u);
        put(0u);
    }
    barrier();
    vec4 fa[2][2], fb[2][2];
    if (FRAGDB) {
        fa[0][0] = As[0][0][rm4], fa[0][1] = As[0][0][rm4 + RH];
        fb[0][0] = Bs[0][0][cn4], fb[0][1] = Bs[0][0][cn4 + CH];
    }
    for (uint t = 0u; t < ntiles; ++t) {
        uint cur = t & 1u;
        bool more = t + 1u < ntiles; // uniform: the barrier below is in uniform control flow
        if (more)
            fetch((t + 1u) * BK);
        [[unroll]] for (uint k = 0u; k < BK; ++k) {
            uint f = FRAGDB ? k & 1u : 0u, g = f ^ 1u;
            if (!FRAGDB) {
                fa[0][0] = As[cur][k][rm4], fa[0][1] = As[cur][k][rm4 + RH];
                fb[0][0] = Bs[cur][k][cn4], fb[0][1] = Bs[cur][k][cn4 + CH];
            } else if (k < BK - 1u) {
                fa[g][0] = As[cur][k + 1u][rm4], fa[g][1] = As[cur][k + 1u][rm4 + RH];
                fb[g][0] = Bs[cur][k + 1u][cn4], fb[g][1] = Bs[cur][k + 1u][cn4 + CH];
            } else if (more) {
                put(cur ^ 1u); // the other stage was last read before the previous barrier
                barrier();
                fa[0][0] = As[cur ^ 1u][0][rm4], fa[0][1] = As[cur ^ 1u][0][rm4 + RH];
                fb[0][0] = Bs[cur ^ 1u][0][cn4], fb[0][1] = Bs[cur ^ 1u][0][cn4 + CH];
            }
            [[unroll]] for (uint i = 0u; i < 8u; ++i) {
                float av = fa[f][i >> 2u][i & 3u];
                acc[i][0] = fma(vec4(av), fb[f][0], acc[i][0]);
                acc[i][1] = fma(vec4(av), fb[f][1], acc[i][1]);
            }
        }
        if (!FRAGDB && more) {
            put(cur ^ 1u);
            barrier();
        }
    }
    bool vecC = (N & 3u) == 0u;
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        uint r = bm + (rm4 + (i < 4u ? 0u : RH)) * 4u + (i & 3u);
        if (r >= M)
            continue;
        [[unroll]] for (uint h = 0u; h < 2u; ++h) {
            uint q = bn + (cn4 + h * CH) * 4u;
            if (vecC) {
                if (q < N)
                    c4[(r * N + q) / 4u] = acc[i][h];
            } else {
                [[unroll]] for (uint j = 0u; j < 4u; ++j)
                    if (q + j < N)
                        c[r * N + q + j] = acc[i][h][j];
            }
        }
    }
}
