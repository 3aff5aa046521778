// sgemm_v0.comp: glsl/sgemm_optimized as shipped before issue 15 (the baseline).
// sgemm_optimized.comp: 128 x 128 block tile, BK = 8, 256 invocations (16 x 16) each computing
// an 8 x 8 register tile; A is stored transposed in shared memory so the inner loop reads
// both operands along rows; rows padded by one. Written for exactly 256 invocations (block
// 16 16 1); grid = ceil(N/128) x ceil(M/128). Every load and store is bounds-checked, and the
// shared tiles are indexed only by k < BK (the source article's form indexes past BK).
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly restrict buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly restrict buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly restrict buffer BufC { float c[]; };
layout(push_constant) uniform Dims { int M; int N; int K; } p;

const uint BM = 128u, BN = 128u, BK = 8u, TM = 8u, TN = 8u;
const uint THREADS = (BM / TM) * (BN / TN); // 256
shared float As[BK][BM + 1u]; // As[k][m] = A[bm + m][k0 + k]
shared float Bs[BK][BN + 1u]; // Bs[k][n] = B[k0 + k][bn + n]

void main()
{
    uint M = uint(p.M), N = uint(p.N), K = uint(p.K);
    uint tid = gl_LocalInvocationIndex;
    uint tx = tid % (BN / TN), ty = tid / (BN / TN);
    uint bm = gl_WorkGroupID.y * BM, bn = gl_WorkGroupID.x * BN;

    float acc[TM][TN];
    for (uint i = 0u; i < TM; ++i)
        for (uint j = 0u; j < TN; ++j)
            acc[i][j] = 0.0;
    float ra[TM], rb[TN];

    for (uint k0 = 0u; k0 < K; k0 += BK) {
        // BM*BK = BK*BN = 1024 elements per tile: 4 per invocation each.
        for (uint l = 0u; l < (BM * BK) / THREADS; ++l) {
            uint idx = tid + l * THREADS;
            uint m = idx / BK, k = idx % BK; // consecutive invocations walk a row of A
            uint gr = bm + m, gk = k0 + k;
            As[k][m] = (gr < M && gk < K) ? a[gr * K + gk] : 0.0;
        }
        for (uint l = 0u; l < (BK * BN) / THREADS; ++l) {
            uint idx = tid + l * THREADS;
            uint k = idx / BN, n = idx % BN;
            uint gk = k0 + k, gc = bn + n;
            Bs[k][n] = (gk < K && gc < N) ? b[gk * N + gc] : 0.0;
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < BK; ++k) {
            [[unroll]] for (uint i = 0u; i < TM; ++i)
                ra[i] = As[k][ty * TM + i];
            [[unroll]] for (uint j = 0u; j < TN; ++j)
                rb[j] = Bs[k][tx * TN + j];
            [[unroll]] for (uint i = 0u; i < TM; ++i)
                [[unroll]] for (uint j = 0u; j < TN; ++j)
                    acc[i][j] += ra[i] * rb[j];
        }
        barrier();
    }
    for (uint i = 0u; i < TM; ++i) {
        uint r = bm + ty * TM + i;
        if (r >= M)
            break;
        for (uint j = 0u; j < TN; ++j) {
            uint q = bn + tx * TN + j;
            if (q < N)
                c[r * N + q] = acc[i][j];
        }
    }
}
