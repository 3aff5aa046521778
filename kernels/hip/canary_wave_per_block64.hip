// canary_wave_per_block64.hip: known-bad reduce (pattern 8): the device code is width-generic, but
// the host's launch math takes a block to be one 64-wide wavefront (the manifest's block =
// 64 threads for each 256-element chunk) and so lets wave lane 0 store the block's partial.
// On narrower warps a block is several warps, each storing its own part of the sum over the
// others': every block partial deterministically misses all but one warp's values. Correct
// at width 64. Reduce ABI, 64 threads, chunk 256.
#include <hip/hip_runtime.h>

#define CHUNK 256

extern "C" __global__ void canary_wave_per_block64(const float *x, float *partials, int n)
{
    const int lane = threadIdx.x % warpSize;
    const long base = (long)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int k = threadIdx.x; k < CHUNK; k += blockDim.x)
        if (base + k < n)
            v += x[base + k];
    for (int offset = warpSize / 2; offset > 0; offset >>= 1)
        v += __shfl_xor(v, offset);
    if (lane == 0) // BUG (the host's): one wave per block, so one lane 0 per block
        partials[blockIdx.x] = v;
}
