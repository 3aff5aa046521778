// early_return.comp: a tiled GLSL SGEMM (op ABI: A, B, C at bindings 0, 1, 2; M, N, K pushed)
// whose invocations outside C return before staging their part of the tiles, so on an edge
// tile the others read workgroup memory nobody wrote in this workgroup (and pass the barrier
// short-handed). Claimed correct: it must FAIL on every run, whatever the driver left there.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(push_constant) uniform Params { int M; int N; int K; } p;

const uint T = 16u;
shared float As[T][T];
shared float Bs[T][T];

void main()
{
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    if (row >= uint(p.M) || col >= uint(p.N))
        return;
    float acc = 0.0;
    for (uint k0 = 0u; k0 < uint(p.K); k0 += T) {
        As[ty][tx] = k0 + tx < uint(p.K) ? a[row * uint(p.K) + k0 + tx] : 0.0;
        Bs[ty][tx] = k0 + ty < uint(p.K) ? b[(k0 + ty) * uint(p.N) + col] : 0.0;
        barrier();
        for (uint k = 0u; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier();
    }
    c[row * uint(p.N) + col] = acc;
}
