// canary_butterfly16.hip: known-bad reduce (brief section 2, pattern 2): a fixed xor
// butterfly with offsets 16..1 sums 32 lanes. Correct only at width 32: at 64 each
// half-wavefront keeps its own sum and the leader drops the upper one; below 32 the offsets
// >= width return the caller's own value, doubling it. Deterministic, not a race.
#include <hip/hip_runtime.h>

extern "C" __global__ void canary_butterfly16(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[64]; // 256 threads / the narrowest width, 4
    const int tid = threadIdx.x;
    const long base = (long)blockIdx.x * 1024;
    float v = 0.0f;
    for (int k = tid; k < 1024; k += blockDim.x)
        if (base + k < n)
            v += x[base + k];

    for (int o = 16; o > 0; o >>= 1) // BUG: assumes 32 lanes
        v += __shfl_xor(v, o);

    if (tid % warpSize == 0)
        warp_sums[tid / warpSize] = v;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < (int)blockDim.x / warpSize; ++w)
            total += warp_sums[w];
        partials[blockIdx.x] = total;
    }
}
