// canary_leader32.hip: known-bad reduce (pattern 10): after a width-generic inclusive scan
// the wave's total sits in its last active lane, elected from the 64-bit __ballot cast to
// int (31 - __clz). On 64-wide wavefronts the cast keeps lanes 0..31, so lane 31 is elected
// and writes the lower half's prefix: every block partial deterministically loses its upper
// half-waves. Correct at widths up to 32. Reduce ABI, 256 threads, chunk 1024.
#include <hip/hip_runtime.h>

#define NTHREADS 256
#define CHUNK 1024
#define MIN_WIDTH 4

extern "C" __global__ void canary_leader32(const float *x, float *partials, int n)
{
    __shared__ float wave_sums[NTHREADS / MIN_WIDTH];
    const int tid = threadIdx.x;
    const int lane = tid % warpSize, wave = tid / warpSize;
    const long base = (long)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int k = tid; k < CHUNK; k += NTHREADS)
        if (base + k < n)
            v += x[base + k];

    for (int d = 1; d < warpSize; d <<= 1) {
        float t = __shfl_up(v, d);
        if (lane >= d)
            v += t;
    }
    int last = 31 - __clz((int)__ballot(1)); // BUG: the 64-bit mask cast to int
    if (lane == last)
        wave_sums[wave] = v;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < NTHREADS / warpSize; ++w)
            total += wave_sums[w];
        partials[blockIdx.x] = total;
    }
}
