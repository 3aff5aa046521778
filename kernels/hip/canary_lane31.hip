// canary_lane31.hip: known-bad reduce (brief section 2, pattern 4): the warp sum uses the
// real width, but leaders and partial slots are `tid & 31` and `tid >> 5`. Correct only at
// width 32: at 64 lane 32's half-sum (doubled by out-of-range shuffles) is added in; below
// 32 the sums of odd-numbered warps inside each 32 are never stored. Deterministic.
#include <hip/hip_runtime.h>

extern "C" __global__ void canary_lane31(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[8]; // BUG: 256 / 32, whatever the width
    const int tid = threadIdx.x;
    const long base = (long)blockIdx.x * 1024;
    float v = 0.0f;
    for (int k = tid; k < 1024; k += blockDim.x)
        if (base + k < n)
            v += x[base + k];

    for (int o = warpSize / 2; o > 0; o >>= 1)
        v += __shfl_down(v, o);

    const int lane = tid & 31, warp = tid >> 5; // BUG: hard-coded 32
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < (int)blockDim.x >> 5; ++w)
            total += warp_sums[w];
        partials[blockIdx.x] = total;
    }
}
