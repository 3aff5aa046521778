// scan_shuffle.comp: inclusive prefix sums within blocks of 4 * (local size) floats, the
// shuffle form, width-generic: steps, lanes and subgroup counts come from gl_SubgroupSize
// and gl_NumSubgroups. Each invocation scans 4 consecutive elements, a subgroupShuffleUp scan
// gives each its subgroup-inclusive total, the subgroup's last invocation stores the
// subgroup's total, subgroup 0 scans those totals gl_SubgroupSize at a time with a carry,
// and each element adds its subgroup's offset and its exclusive total. Elements go by
// (gl_SubgroupID, gl_SubgroupInvocationID), so the scan's order is the subgroups' own
// whatever their layout; a local size that is no multiple of the width ends in a partial
// subgroup, its low invocations active.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufY { float y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufP { float partials[]; };
layout(push_constant) uniform Args { int n; } p;

const uint ITEMS = 4u;
const uint THREADS = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
shared float totals[THREADS];

float scan_subgroup(float v, uint lane)
{
    for (uint d = 1u; d < gl_SubgroupSize; d <<= 1) {
        float t = subgroupShuffleUp(v, d);
        if (lane >= d)
            v += t;
    }
    return v;
}

void main()
{
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID;
    uint t = sg * gl_SubgroupSize + lane;
    uint last = min(gl_SubgroupSize, THREADS - sg * gl_SubgroupSize) - 1u;
    uint n = uint(p.n);
    uint first = gl_WorkGroupID.x * THREADS * ITEMS + t * ITEMS;
    float v[ITEMS];
    float run = 0.0;
    for (uint i = 0u; i < ITEMS; ++i) {
        run += first + i < n ? x[first + i] : 0.0;
        v[i] = run;
    }
    float inclusive = scan_subgroup(run, lane);
    float exclusive = subgroupShuffleUp(inclusive, 1u);
    if (lane == last)
        totals[sg] = inclusive;
    barrier();
    if (sg == 0u) {
        float carry = 0.0;
        for (uint base = 0u; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            float w = scan_subgroup(base + lane < gl_NumSubgroups ? totals[base + lane] : 0.0, lane);
            if (base > 0u)
                w += carry;
            if (base + lane < gl_NumSubgroups)
                totals[base + lane] = w;
            carry = subgroupShuffle(w, gl_SubgroupSize - 1u);
        }
    }
    barrier();
    if (lane == 0u)
        exclusive = 0.0;
    float before = sg > 0u ? totals[sg - 1u] + exclusive : exclusive;
    for (uint i = 0u; i < ITEMS; ++i)
        if (first + i < n)
            y[first + i] = before + v[i];
    if (t == THREADS - 1u)
        partials[gl_WorkGroupID.x] = totals[gl_NumSubgroups - 1u];
}
