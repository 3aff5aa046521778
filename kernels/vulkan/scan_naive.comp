// scan_naive.comp: inclusive prefix sums within blocks of 4 * (local size) floats (1024 with
// the manifest's 256 invocations), the barrier form: each invocation scans 4 consecutive
// elements, a Hillis-Steele scan of the invocation totals runs in double-buffered shared
// memory with a barrier per step, and each element adds its invocation's exclusive offset.
// y[i] is the sum of x from its block's first element to i; partials[b] is block b's total.
// No subgroup operation, so no width enters.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufY { float y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufP { float partials[]; };
layout(push_constant) uniform Args { int n; } p;

const uint ITEMS = 4u;
const uint THREADS = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
shared float sums[2u * THREADS];

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint n = uint(p.n);
    uint first = gl_WorkGroupID.x * THREADS * ITEMS + tid * ITEMS;
    float v[ITEMS];
    float run = 0.0;
    for (uint i = 0u; i < ITEMS; ++i) {
        run += first + i < n ? x[first + i] : 0.0;
        v[i] = run;
    }
    uint in_half = 0u;
    sums[tid] = run;
    barrier();
    for (uint d = 1u; d < THREADS; d <<= 1) {
        float s = sums[in_half + tid];
        if (tid >= d)
            s += sums[in_half + tid - d];
        in_half = THREADS - in_half;
        sums[in_half + tid] = s;
        barrier();
    }
    float before = tid > 0u ? sums[in_half + tid - 1u] : 0.0;
    for (uint i = 0u; i < ITEMS; ++i)
        if (first + i < n)
            y[first + i] = before + v[i];
    if (tid == THREADS - 1u)
        partials[gl_WorkGroupID.x] = sums[in_half + tid];
}
