// fault_sgemm_oob.comp: known-bad canary (expect = oob). A naive SGEMM whose last element is
// stored as a 4-wide group, as a vectorised epilogue that forgot the tail would: the owner of
// C[M*N-1] also writes C[M*N .. M*N+2], three floats past C's end. C itself is right, so only
// the guard-band check can catch it. With M or N = 0 no invocation runs and nothing is hit.
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
    uint idx = row * N + col;
    c[idx] = acc;
    if (idx == M * N - 1u)
        for (uint t = 1u; t < 4u; ++t)
            c[idx + t] = 0.0;
}
