// canary_wave64_on32.hip: known-bad reduce (brief section 2, pattern 6): code written for
// 64-wide wavefronts, shfl_down offsets 32..1 and leaders at tid % 64. Correct only at
// width 64: narrower, the offsets >= width return the caller's own value, so each leader
// holds twice its own warp's sum and the other warps' sums are dropped. Deterministic.
#include <hip/hip_runtime.h>

extern "C" __global__ void canary_wave64_on32(const float *x, float *partials, int n)
{
    __shared__ float wave_sums[4]; // BUG: 256 / 64, whatever the width
    const int tid = threadIdx.x;
    const long base = (long)blockIdx.x * 1024;
    float v = 0.0f;
    for (int k = tid; k < 1024; k += blockDim.x)
        if (base + k < n)
            v += x[base + k];

    for (int o = 32; o > 0; o >>= 1) // BUG: assumes 64 lanes
        v += __shfl_down(v, o);

    if (tid % 64 == 0)
        wave_sums[tid / 64] = v;
    __syncthreads();
    if (tid == 0)
        partials[blockIdx.x] = wave_sums[0] + wave_sums[1] + wave_sums[2] + wave_sums[3];
}
