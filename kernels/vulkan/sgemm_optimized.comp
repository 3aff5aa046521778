// sgemm_optimized.comp: 128 x 128 block tile, BK = 8, 256 invocations (16 x 16) each computing
// an 8 x 8 register tile; A is stored transposed in padded shared memory. On top of that: two
// shared stages with the next tile's global loads held in registers (one barrier per tile),
// vec4 global and shared accesses, warp tiles, and a check-free path for workgroups whose tile
// lies inside C. Fragments are read in the k step that uses them: reading step k+1's ahead
// took 157 registers on NVIDIA, one workgroup per SM instead of two (35 against 40 TFLOPS at
// 4096 on the H200); its compiler schedules the shared loads itself. Every
// register array is indexed only by constants once the [[unroll]] loops are unrolled (glslc -O
// does it): a dynamic index sends the array to local memory, which made an earlier form of
// this shader 10x slower on NVIDIA. Any M, N, K and subgroup size; written for exactly 256
// invocations (block 16 16 1); grid ceil(N/128) x ceil(M/128).
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

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

// Warp tiles: warp w owns rows (w/2)*32 .. +31 and columns (w%2)*64 .. +63, its 32 lanes a
// 4 x 8 grid; an invocation's 8 x 8 is rows rm + {0..3, 16..19} by columns cn + {0..3,
// 32..35}, so with 32-wide subgroups a k step's reads touch 4 A and 8 B vec4s: no conflicts.
const uint RH = 4u, CH = 8u; // the second halves, in vec4s

uint M, N, K, tid, bm, bn, rm4, cn4;
bool vecA, vecB;
uint nextA, nextB; // whole path: vec4 index of the next tile's loads in a4 and b4
vec4 ga, gb;       // the next tile, on its way from global memory
vec4 acc[16];      // acc[i * 2 + h]: row i of the 8 x 8, column half h
vec4 fa[2], fb[2]; // one k step's fragments: [half]

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

// A[bm + tid/2][k0 + (tid%2)*4 ..] and B[k0 + tid/32][bn + (tid%32)*4 ..]. whole is a
// constant at every call once inlined: each path gets its own loop.
void fetch(bool whole, uint k0)
{
    if (whole) {
        ga = a4[nextA];
        gb = b4[nextB];
        nextA += BK / 4u;
        nextB += BK * N / 4u;
    } else {
        ga = load4A(bm + (tid >> 1u), k0 + (tid & 1u) * 4u);
        gb = load4B(k0 + (tid >> 5u), bn + (tid & 31u) * 4u);
    }
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

void frag(uint s, uint k)
{
    fa[0] = As[s][k][rm4];
    fa[1] = As[s][k][rm4 + RH];
    fb[0] = Bs[s][k][cn4];
    fb[1] = Bs[s][k][cn4 + CH];
}

void fmas()
{
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        float av = fa[i >> 2u][i & 3u];
        acc[i * 2u] = fma(vec4(av), fb[0], acc[i * 2u]);
        acc[i * 2u + 1u] = fma(vec4(av), fb[1], acc[i * 2u + 1u]);
    }
}

// One k tile on stage s (a constant at each call: the loop below is unrolled by two). The
// next tile's loads go out first and land in the other stage after step 7; that stage was
// last read before the previous barrier. more is uniform: the barrier is in uniform flow.
void tile(bool whole, uint s, uint t, bool more)
{
    if (more)
        fetch(whole, (t + 1u) * BK);
    [[unroll]] for (uint k = 0u; k < BK; ++k) {
        frag(s, k);
        // Step 7's fragments are in registers: the other stage can be filled and published.
        if (k == BK - 1u && more) {
            put(s ^ 1u);
            barrier();
        }
        fmas();
    }
}

void k_loop(bool whole, uint ntiles)
{
    if (ntiles == 0u)
        return;
    nextA = ((bm + (tid >> 1u)) * K + (tid & 1u) * 4u) / 4u;
    nextB = ((tid >> 5u) * N + bn + (tid & 31u) * 4u) / 4u;
    fetch(whole, 0u);
    put(0u);
    barrier();
    for (uint t = 0u; t < ntiles; t += 2u) {
        tile(whole, 0u, t, t + 1u < ntiles);
        if (t + 1u < ntiles)
            tile(whole, 1u, t + 1u, t + 2u < ntiles);
    }
}

void store()
{
    bool vecC = (N & 3u) == 0u;
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        uint r = bm + (rm4 + (i < 4u ? 0u : RH)) * 4u + (i & 3u);
        [[unroll]] for (uint h = 0u; h < 2u; ++h) {
            uint q = bn + (cn4 + h * CH) * 4u;
            if (r < M && vecC && q < N)
                c4[(r * N + q) / 4u] = acc[i * 2u + h];
            [[unroll]] for (uint j = 0u; j < 4u; ++j)
                if (r < M && !vecC && q + j < N)
                    c[r * N + q + j] = acc[i * 2u + h][j];
        }
    }
}

void main()
{
    M = uint(p.M), N = uint(p.N), K = uint(p.K);
    tid = gl_LocalInvocationIndex;
    bm = gl_WorkGroupID.y * BM, bn = gl_WorkGroupID.x * BN;
    vecA = (K & 3u) == 0u;
    vecB = (N & 3u) == 0u;
    uint w = tid >> 5u, l = tid & 31u;
    rm4 = (w >> 1u) * 8u + (l >> 3u), cn4 = (w & 1u) * 16u + (l & 7u); // rm / 4, cn / 4
    [[unroll]] for (uint i = 0u; i < 16u; ++i)
        acc[i] = vec4(0.0);
    uint ntiles = (K + BK - 1u) / BK;
    // Uniform over the workgroup: each path's loop is uniform control flow.
    if (vecA && vecB && (K % BK) == 0u && bm + BM <= M && bn + BN <= N)
        k_loop(true, ntiles);
    else
        k_loop(false, ntiles);
    store();
}
