// reduce_generic.comp: block sum correct at any subgroup width (chunk 1024): subgroupAdd,
// then the leader of each subgroup (gl_SubgroupInvocationID == 0) stores at gl_SubgroupID,
// and invocation 0 adds gl_NumSubgroups partials. The partial array has one slot per
// invocation, enough even for width 1, so no width assumption is left.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufP { float partials[]; };
layout(push_constant) uniform Args { int n; } p;

const uint CHUNK = 1024u;
const uint THREADS = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
shared float sub_sums[THREADS];

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint n = uint(p.n);
    uint base = gl_WorkGroupID.x * CHUNK;
    float v = 0.0;
    for (uint i = tid; i < CHUNK; i += THREADS)
        if (base + i < n)
            v += x[base + i];
    float s = subgroupAdd(v);
    if (gl_SubgroupInvocationID == 0u)
        sub_sums[gl_SubgroupID] = s;
    barrier();
    if (tid == 0u) {
        float t = 0.0;
        for (uint w = 0u; w < gl_NumSubgroups; ++w)
            t += sub_sums[w];
        partials[gl_WorkGroupID.x] = t;
    }
}
