// sgemm_naive.comp: C = A * B (row-major fp32), one invocation per element of C, the dot
// product read straight from global memory. The baseline form: no shared memory, no tiling.
// Correct for any M, N, K >= 0 and any local size; grid = ceil(N/bx) x ceil(M/by).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(push_constant) uniform Dims { int M; int N; int K; } p;

void main()
{
    uint col = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    uint M = uint(p.M), N = uint(p.N), K = uint(p.K);
    if (row >= M || col >= N)
        return;
    float acc = 0.0;
    for (uint k = 0u; k < K; ++k)
        acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
}
