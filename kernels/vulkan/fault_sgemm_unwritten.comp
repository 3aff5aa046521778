// fault_sgemm_unwritten.comp: known-bad canary (expect = unwritten). A naive SGEMM with an
// off-by-one store guard (row + 1 < M, col + 1 < N): the last row and the last column of C
// are never written, so the output poison must survive there and be reported as such.
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
    if (row + 1u >= M || col + 1u >= N)
        return;
    float acc = 0.0;
    for (uint k = 0u; k < K; ++k)
        acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
}
