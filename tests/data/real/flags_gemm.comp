// flags_gemm.comp: flags_gemm.cu in GLSL: builds only with the manifest's `includes = inc` (its
// "real_step.glsl") and `defines = REAL_TILE=16 REAL_ROW_MAJOR`, as glslc takes -I and -D.
// The op's ABI (A, B, C at bindings 0, 1, 2; M, N, K pushed). Written for the harness's tests.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "real_step.glsl"

#ifndef REAL_ROW_MAJOR
#error "REAL_ROW_MAJOR is the manifest's: defines = REAL_TILE=16 REAL_ROW_MAJOR"
#endif

layout(local_size_x = REAL_TILE, local_size_y = REAL_TILE) in;

layout(set = 0, binding = 0, std430) readonly buffer BufA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufC { float c[]; };
layout(push_constant) uniform Dims { int M; int N; int K; } p;

void main()
{
    uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    uint M = uint(p.M), N = uint(p.N), K = uint(p.K);
    if (row >= M || col >= N)
        return;
    float acc = 0.0;
    for (uint k = 0u; k < K; ++k)
        acc = real_step(acc, a[row * K + k], b[k * N + col]);
    c[row * N + col] = acc;
}
