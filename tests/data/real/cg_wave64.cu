// cg_wave64.cu: a block sum written for wave64 hardware, a thread_block_tile<64> reduced by its
// own shuffles as a HIP kernel built for gfx9 is: right at width 64; at 32 the tile spans two
// warps and has no shuffle, so the emulator stops the kernel, naming why. Written for the
// harness's tests.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void wave_sum(const float *x, float *partials, int n)
{
    __shared__ float leaders[4];
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<64> wave = cg::tiled_partition<64>(cta);
    unsigned i = blockIdx.x * 256 + cta.thread_rank();
    float v = i < (unsigned)n ? x[i] : 0.0f;
    for (unsigned d = 32; d > 0; d /= 2)
        v += wave.shfl_down(v, d);
    if (wave.thread_rank() == 0)
        leaders[wave.meta_group_rank()] = v;
    cta.sync();
    if (cta.thread_rank() == 0)
        partials[blockIdx.x] = (leaders[0] + leaders[1]) + (leaders[2] + leaders[3]);
}
