// softmax_block.comp: y = softmax of each row of x (rows x cols, row-major), one workgroup per
// row, the barrier form: invocations stride over the row by the local size, and the row's
// maximum and the sum of exp(x - max) are each a tree in shared memory with a barrier per
// step. No subgroup operation, so no width enters; the local size a power of two.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufY { float y[]; };
layout(push_constant) uniform Args { int rows; int cols; } p;

const uint THREADS = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
shared float red[THREADS];

// The workgroup's max (is_max) or sum of v, in every invocation.
float tree(float v, bool is_max)
{
    uint tid = gl_LocalInvocationIndex;
    red[tid] = v;
    barrier();
    for (uint half_n = THREADS / 2u; half_n > 0u; half_n >>= 1) {
        if (tid < half_n)
            red[tid] = is_max ? max(red[tid], red[tid + half_n]) : red[tid] + red[tid + half_n];
        barrier();
    }
    float all = red[0];
    barrier(); // red is reused by the next tree
    return all;
}

void main()
{
    uint row = gl_WorkGroupID.x, cols = uint(p.cols), tid = gl_LocalInvocationIndex;
    if (row >= uint(p.rows))
        return;
    uint at = row * cols;
    float m = uintBitsToFloat(0xff800000u) /* -Inf */;
    for (uint j = tid; j < cols; j += THREADS)
        m = max(m, x[at + j]);
    m = tree(m, true);
    float s = 0.0;
    for (uint j = tid; j < cols; j += THREADS)
        s += exp(x[at + j] - m);
    s = tree(s, false);
    for (uint j = tid; j < cols; j += THREADS)
        y[at + j] = exp(x[at + j] - m) / s;
}
