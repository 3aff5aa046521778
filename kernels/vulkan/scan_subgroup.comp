// scan_subgroup.comp: inclusive prefix sums within blocks of 4 * (local size) floats, the
// subgroup-arithmetic form, width-generic: each invocation scans 4 consecutive elements,
// subgroupExclusiveAdd gives each its offset within the subgroup and subgroupAdd the
// subgroup's total, subgroup 0 scans the totals with subgroupInclusiveAdd gl_SubgroupSize at
// a time (the carry a subgroupAdd), and each element adds its subgroup's offset. Elements go
// by (gl_SubgroupID, gl_SubgroupInvocationID), as in scan_shuffle.comp; a partial subgroup's
// operations cover its active invocations alone.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufY { float y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufP { float partials[]; };
layout(push_constant) uniform Args { int n; } p;

const uint ITEMS = 4u;
const uint THREADS = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
shared float totals[THREADS];

void main()
{
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID;
    uint t = sg * gl_SubgroupSize + lane;
    uint n = uint(p.n);
    uint first = gl_WorkGroupID.x * THREADS * ITEMS + t * ITEMS;
    float v[ITEMS];
    float run = 0.0;
    for (uint i = 0u; i < ITEMS; ++i) {
        run += first + i < n ? x[first + i] : 0.0;
        v[i] = run;
    }
    float exclusive = subgroupExclusiveAdd(run);
    float total = subgroupAdd(run);
    if (subgroupElect())
        totals[sg] = total;
    barrier();
    if (sg == 0u) {
        float carry = 0.0;
        for (uint base = 0u; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            float w = base + lane < gl_NumSubgroups ? totals[base + lane] : 0.0;
            float scanned = subgroupInclusiveAdd(w);
            if (base > 0u)
                scanned += carry;
            if (base + lane < gl_NumSubgroups)
                totals[base + lane] = scanned;
            carry += subgroupAdd(w);
        }
    }
    barrier();
    float before = sg > 0u ? totals[sg - 1u] + exclusive : exclusive;
    for (uint i = 0u; i < ITEMS; ++i)
        if (first + i < n)
            y[first + i] = before + v[i];
    if (t == THREADS - 1u)
        partials[gl_WorkGroupID.x] = totals[gl_NumSubgroups - 1u];
}
