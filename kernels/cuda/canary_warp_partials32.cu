/* canary_warp_partials32.cu: known-bad per-warp sums (pattern 8), op = custom: the device code
 * is width-generic (each warp sums warpSize consecutive elements and its lane 0 stores the sum
 * at the warp's global index), but the host's math takes a warp to be 32 lanes: it sizes the
 * partials as n / 32 (the manifest's buffer) and reads partial i as x[32 i .. 32 i + 31].
 * Ported to wave64 (the port check at width 64) each wave sums 64 elements into the first
 * half of the partials and leaves the rest unwritten; narrower warps store sums of 4, 8 or
 * 16 elements. Deterministic at every width; right at 32. 256 threads, n / 256 blocks. */
#include <cuda_runtime.h>

extern "C" __global__ void canary_warp_partials32(const float *x, float *partials, int n)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int o = warpSize / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const long warp = i / warpSize;
    if (threadIdx.x % warpSize == 0 && warp * warpSize < n)
        partials[warp] = v;
}
