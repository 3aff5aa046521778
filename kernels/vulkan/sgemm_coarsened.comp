// sgemm_coarsened.comp: tiled SGEMM where each invocation computes a 2x2 group of C spread
// T/2 apart, T = 2 * local size x (block 16 16 1 -> 32 x 32 tiles); grid = ceil(N/T) x
// ceil(M/T). Spreading the group keeps neighbouring invocations on neighbouring columns,
// so global loads stay coalesced. Bounds-checked for any M, N, K >= 0.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(push_constant) uniform Dims { int M; int N; int K; } p;

const uint S = gl_WorkGroupSize.x; // spread between the 2x2 outputs of one invocation
const uint T = 2u * S;             // tile edge
shared float As[T][T + 1u];
shared float Bs[T][T + 1u];

void main()
{
    uint M = uint(p.M), N = uint(p.N), K = uint(p.K);
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint row0 = gl_WorkGroupID.y * T + ty;
    uint col0 = gl_WorkGroupID.x * T + tx;
    float acc[2][2] = float[2][2](float[2](0.0, 0.0), float[2](0.0, 0.0));
    for (uint k0 = 0u; k0 < K; k0 += T) {
        for (uint i = 0u; i < 2u; ++i) {
            for (uint j = 0u; j < 2u; ++j) {
                uint r = ty + i * S, q = tx + j * S; // tile coordinates this invocation loads
                uint ar = gl_WorkGroupID.y * T + r, ak = k0 + q;
                uint bk = k0 + r, bc = gl_WorkGroupID.x * T + q;
                As[r][q] = (ar < M && ak < K) ? a[ar * K + ak] : 0.0;
                Bs[r][q] = (bk < K && bc < N) ? b[bk * N + bc] : 0.0;
            }
        }
        barrier();
        for (uint k = 0u; k < T; ++k) {
            float a0 = As[ty][k], a1 = As[ty + S][k];
            float b0 = Bs[k][tx], b1 = Bs[k][tx + S];
            acc[0][0] += a0 * b0;
            acc[0][1] += a0 * b1;
            acc[1][0] += a1 * b0;
            acc[1][1] += a1 * b1;
        }
        barrier();
    }
    for (uint i = 0u; i < 2u; ++i) {
        for (uint j = 0u; j < 2u; ++j) {
            uint r = row0 + i * S, q = col0 + j * S;
            if (r < M && q < N)
                c[r * N + q] = acc[i][j];
        }
    }
}
