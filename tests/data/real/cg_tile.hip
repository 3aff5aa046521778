// SPDX-License-Identifier: MIT
// cg_tile.hip: a block sum through cooperative groups as HIP programs write it, the runtime
// header first; on HIP's NVIDIA platform cooperative_groups.h brings CUDA 13's libcu++ after the
// runtime's own definitions, which must not clash (issue 26).
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void tile_sum(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int offset = tile.size() / 2; offset > 0; offset /= 2)
        v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0)
        warp_sums[threadIdx.x / 32] = v;
    block.sync();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
            s += warp_sums[w];
        partials[blockIdx.x] = s;
    }
}
