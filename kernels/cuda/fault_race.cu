/* fault_race: known-bad reduce canary (reduce ABI, 256 threads, chunk 1024). The
 * shared-memory tree is missing the barrier between the threads' stores and the
 * first tree step, so threads read neighbours' slots before (or after) they are
 * written: stale shared memory on a GPU, schedule-dependent order in an emulator.
 * The run must be classed "nondeterministic" by the repeat check. */
#include <cuda_runtime.h>

#define FR_THREADS 256
#define FR_CHUNK 1024

extern "C" __global__ void fault_race(const float *__restrict__ x, float *__restrict__ partials,
                                      int n)
{
    __shared__ float sm[FR_THREADS];
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * FR_CHUNK;
    float s = 0.0f;
    for (int r = 0; r < FR_CHUNK / FR_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * FR_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    sm[tid] = s;
    /* the bug: no __syncthreads() here */
    for (int stride = FR_THREADS / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            sm[tid] += sm[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = sm[0];
}
