// canary_rank32.hip: known-bad reduce (pattern 7): stream compaction that ranks each lane
// among the wave's kept lanes with a lane mask built in 32 bits, (1u << (lane & 31)) - 1. On
// 64-wide wavefronts a lane of the upper half gets the rank of its lower-half twin: the two
// write one slot, the upper slots stay empty, and the block partial deterministically loses
// values. Correct at widths up to 32. Reduce ABI, 256 threads, chunk 1024.
#include <hip/hip_runtime.h>

#define NTHREADS 256
#define CHUNK 1024
#define MIN_WIDTH 4

extern "C" __global__ void canary_rank32(const float *x, float *partials, int n)
{
    __shared__ float slots[NTHREADS];
    __shared__ float wave_sums[NTHREADS / MIN_WIDTH];
    const int tid = threadIdx.x;
    const int lane = tid % warpSize, wave = tid / warpSize;
    const long base = (long)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int k = tid; k < CHUNK; k += NTHREADS)
        if (base + k < n)
            v += x[base + k];

    slots[tid] = 0.0f;
    __syncthreads();
    unsigned long long keep = __ballot(v != 0.0f);
    unsigned int below = (1u << (lane & 31)) - 1u; // BUG: the mask of lower lanes in 32 bits
    if (v != 0.0f)
        slots[wave * warpSize + (int)__popcll(keep & below)] = v;
    __syncthreads();
    if (lane == 0) {
        float s = 0.0f;
        for (int i = 0; i < (int)__popcll(keep); ++i)
            s += slots[wave * warpSize + i];
        wave_sums[wave] = s;
    }
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < NTHREADS / warpSize; ++w)
            total += wave_sums[w];
        partials[blockIdx.x] = total;
    }
}
