/* canary_leader32.cu: known-bad reduce (pattern 10), the CUDA original of hip/canary_leader32:
 * after a width-generic inclusive scan the warp's total sits in its last active lane, elected
 * as 31 - __clz((int)__activemask()). Right at widths up to 32; ported to wave64 (the port
 * check at width 64) the 64-bit mask cast to int keeps lanes 0..31, so lane 31 is elected and
 * writes the lower half's prefix: every block partial deterministically loses its upper
 * half-waves. Reduce ABI, 256 threads, chunk 1024. */
#include <cuda_runtime.h>

#define NTHREADS 256
#define CHUNK 1024
#define MIN_WIDTH 4

extern "C" __global__ void canary_leader32(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[NTHREADS / MIN_WIDTH];
    const int tid = threadIdx.x;
    const int lane = tid % warpSize, warp = tid / warpSize;
    const long base = (long)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int k = tid; k < CHUNK; k += NTHREADS)
        if (base + k < n)
            v += x[base + k];

    for (int d = 1; d < warpSize; d <<= 1) {
        float t = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d)
            v += t;
    }
    int last = 31 - __clz((int)__activemask()); /* BUG: the mask cast to int */
    if (lane == last)
        warp_sums[warp] = v;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < NTHREADS / warpSize; ++w)
            total += warp_sums[w];
        partials[blockIdx.x] = total;
    }
}
