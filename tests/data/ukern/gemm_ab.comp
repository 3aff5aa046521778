// gemm_ab.comp: a user's GLSL SGEMM with a signature of its own: C = alpha * A * B + beta * C,
// row-major, the buffers declared C, A, B (bindings 0, 1, 2), and a push-constant block with
// the scalars first and N a 64-bit integer (8 bytes, 8-aligned: offset 16, not 12). Its
// manifest's `args = C A B alpha beta M N:u64 K` says exactly that; a backend that bound or
// pushed in another order, or N in 4 bytes, would compute garbage. Bounds-checked. For the tests.
#version 450
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) buffer BufC { float c[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufB { float b[]; };
layout(push_constant) uniform Params { float alpha; float beta; int M; uint64_t N; int K; } p;

void main()
{
    uint n = uint(p.N), col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    if (row >= uint(p.M) || col >= n)
        return;
    float acc = 0.0;
    for (uint k = 0u; k < uint(p.K); ++k)
        acc += a[row * uint(p.K) + k] * b[k * n + col];
    uint at = row * n + col;
    c[at] = p.alpha * acc + p.beta * c[at];
}
