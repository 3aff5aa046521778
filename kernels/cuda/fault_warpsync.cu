/* fault_warpsync: known-bad reduce canary (reduce ABI, 256 threads, chunk 1024): brief
 * pattern 9, implicit lockstep. A barrier tree down to 64 partials, then an `if (tid < 32)`
 * volatile shared-memory tree with no __syncwarp between steps. Since Volta this is
 * undefined: it usually gives the right sum on an NVIDIA GPU, which is why only a race
 * detector (compute-sanitizer racecheck) or the emulator's schedules expose it. */
#include <cuda_runtime.h>

#define FW_THREADS 256
#define FW_CHUNK 1024

extern "C" __global__ void fault_warpsync(const float *__restrict__ x, float *__restrict__ partials, int n)
{
    __shared__ float sm[FW_THREADS];
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * FW_CHUNK;
    float s = 0.0f;
    for (int r = 0; r < FW_CHUNK / FW_THREADS; ++r) {
        size_t i = base + tid + (size_t)r * FW_THREADS;
        if (i < (size_t)n)
            s += x[i];
    }
    sm[tid] = s;
    __syncthreads();
    for (int stride = FW_THREADS / 2; stride > 32; stride >>= 1) {
        if (tid < stride)
            sm[tid] += sm[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        volatile float *v = sm;
        /* the bug: each step reads what another lane wrote one step earlier, with no
         * __syncwarp to order them */
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0)
        partials[blockIdx.x] = sm[0];
}
