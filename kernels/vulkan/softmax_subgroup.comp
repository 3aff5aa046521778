// softmax_subgroup.comp: y = softmax of each row of x (rows x cols, row-major), one subgroup
// per row, width-generic: the lane, the stride over the row's columns and the rows a
// workgroup covers come from gl_SubgroupSize and gl_NumSubgroups, the row's maximum and sum
// are subgroupMax and subgroupAdd. Full subgroups take rows gl_WorkGroupID.x * subgroups +
// gl_SubgroupID, then step by the dispatch's subgroups, so the manifest's grid is right at
// any width; a partial last subgroup (a local size that is no multiple of the width) idles.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufY { float y[]; };
layout(push_constant) uniform Args { int rows; int cols; } p;

const uint THREADS = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;

void main()
{
    uint lane = gl_SubgroupInvocationID, cols = uint(p.cols);
    uint subgroups = THREADS / gl_SubgroupSize;
    if (gl_SubgroupID >= subgroups)
        return;
    for (uint row = gl_WorkGroupID.x * subgroups + gl_SubgroupID; row < uint(p.rows);
         row += gl_NumWorkGroups.x * subgroups) {
        uint at = row * cols;
        float m = uintBitsToFloat(0xff800000u) /* -Inf */;
        for (uint j = lane; j < cols; j += gl_SubgroupSize)
            m = max(m, x[at + j]);
        m = subgroupMax(m);
        float s = 0.0;
        for (uint j = lane; j < cols; j += gl_SubgroupSize)
            s += exp(x[at + j] - m);
        s = subgroupAdd(s);
        for (uint j = lane; j < cols; j += gl_SubgroupSize)
            y[at + j] = exp(x[at + j] - m) / s;
    }
}
