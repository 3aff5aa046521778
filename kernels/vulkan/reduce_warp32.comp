// reduce_warp32.comp: block sum written for 32-wide subgroups (block 256, chunk 1024): each
// invocation sums 4 elements, subgroupAdd over the REAL subgroup, then leaders chosen by a
// hard-coded `lane = tid & 31` store smem[tid >> 5]. Exact at width 32 only, and wrong
// deterministically elsewhere: below 32 each partial keeps one subgroup of every 32 lanes,
// at 64 each partial is stored twice (brief section 2, pattern 4).
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufP { float partials[]; };
layout(push_constant) uniform Args { int n; } p;

const uint CHUNK = 1024u;
shared float warp_sums[256u / 32u];

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint n = uint(p.n);
    uint base = gl_WorkGroupID.x * CHUNK;
    float v = 0.0;
    for (uint i = tid; i < CHUNK; i += gl_WorkGroupSize.x)
        if (base + i < n)
            v += x[base + i];
    float s = subgroupAdd(v);
    uint lane = tid & 31u;
    if (lane == 0u)
        warp_sums[tid >> 5u] = s;
    barrier();
    if (tid == 0u) {
        float t = 0.0;
        for (uint w = 0u; w < 256u / 32u; ++w)
            t += warp_sums[w];
        partials[gl_WorkGroupID.x] = t;
    }
}
