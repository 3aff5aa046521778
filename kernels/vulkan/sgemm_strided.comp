// sgemm_strided.comp: C = A * B with row strides (sgemm_strided ABI: buffers A, B, C; push
// constants M, N, K, lda, ldb, ldc). The naive form addressed through leading dimensions:
// element (i, k) of A is a[i * lda + k]. The padding between rows is never read or written.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(push_constant) uniform Dims { int M; int N; int K; int lda; int ldb; int ldc; } p;

void main()
{
    uint col = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (row >= uint(p.M) || col >= uint(p.N))
        return;
    float acc = 0.0;
    for (uint k = 0u; k < uint(p.K); ++k)
        acc += a[row * uint(p.lda) + k] * b[k * uint(p.ldb) + col];
    c[row * uint(p.ldc) + col] = acc;
}
