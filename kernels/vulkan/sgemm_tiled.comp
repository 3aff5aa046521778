// sgemm_tiled.comp: C = A * B with T x T tiles of A and B staged in shared memory
// (barrier, accumulate, barrier). T is the local size x (a specialization constant), so the
// block must be square (T T 1); grid = ceil(N/T) x ceil(M/T). Out-of-range tile entries load
// as zero and stores are guarded, so any M, N, K >= 0 is exact.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(push_constant) uniform Dims { int M; int N; int K; } p;

const uint T = gl_WorkGroupSize.x;
// +1 column: a tile read down a column would otherwise hit one bank T times.
shared float As[T][T + 1u];
shared float Bs[T][T + 1u];

void main()
{
    uint M = uint(p.M), N = uint(p.N), K = uint(p.K);
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint row = gl_WorkGroupID.y * T + ty;
    uint col = gl_WorkGroupID.x * T + tx;
    float acc = 0.0;
    for (uint k0 = 0u; k0 < K; k0 += T) {
        uint ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? a[row * K + ka] : 0.0;
        Bs[ty][tx] = (kb < K && col < N) ? b[kb * N + col] : 0.0;
        barrier();
        for (uint k = 0u; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier();
    }
    if (row < M && col < N)
        c[row * N + col] = acc;
}
