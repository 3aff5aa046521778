#include <hip/hip_runtime.h>
/* reduce_generic: block b sums x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with 256
 * threads, correct at any wavefront width from 4 to 64: lane, wave index, shuffle offsets and
 * the number of per-wave partials all come from warpSize at run time, and the partial array
 * is sized for the narrowest width. The few per-wave partials are summed by one thread in a
 * fixed order, so the result does not depend on the width's reduction tree beyond the waves. */

#define NTHREADS 256
#define CHUNK 1024
#define MIN_WIDTH 4

extern "C" __global__ void reduce_generic(const float *__restrict__ x, float *__restrict__ partials,
                                          int n)
{
    __shared__ float wave_sums[NTHREADS / MIN_WIDTH];
    const int tid = threadIdx.x;
    const int width = warpSize;
    const int lane = tid % width;
    const int wave = tid / width;
    const int n_waves = (blockDim.x + width - 1) / width;

    size_t base = (size_t)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int i = 0; i < CHUNK / NTHREADS; ++i) {
        size_t idx = base + tid + (size_t)i * NTHREADS;
        if (idx < (size_t)n)
            v += x[idx];
    }

    /* butterfly over exactly the lanes a wave has: offsets width/2 .. 1 */
    for (int offset = width / 2; offset > 0; offset >>= 1)
        v += __shfl_xor(v, offset);
    if (lane == 0)
        wave_sums[wave] = v;
    __syncthreads();

    if (tid == 0) {
        float s = 0.0f;
        for (int w = 0; w < n_waves; ++w)
            s += wave_sums[w];
        partials[blockIdx.x] = s;
    }
}
