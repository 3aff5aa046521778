// histogram.comp: the integer histogram of histogram.cu in GLSL, for the harness's op = custom
// tests on Vulkan: buffers bind in the declared order (x at 0, h at 1), the integers n and bins
// come in one push-constant block in the declared order.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0, std430) readonly buffer BufX { int x[]; };
layout(set = 0, binding = 1, std430) buffer BufH { uint h[]; };
layout(push_constant) uniform Args { int n; int bins; } p;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(p.n))
        atomicAdd(h[x[i]], 1u);
}
