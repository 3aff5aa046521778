// axpy.comp: y = alpha x + y for the harness's op = custom tests on Vulkan: a float scalar
// after an integer in the push constants (declared order), y inout. The device may fuse the
// multiply-add, one rounding less than the C reference: 1 ULP at most.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) buffer BufY { float y[]; };
layout(push_constant) uniform Args { int n; float alpha; } p;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(p.n))
        y[i] = p.alpha * x[i] + y[i];
}
