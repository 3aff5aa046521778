#include <hip/hip_runtime.h>
/* reduce_wave64 (KNOWN-BAD at any width but 64): block b sums x[b*1024 .. min(n, (b+1)*1024))
 * into partials[b] with 256 threads, written for AMD CDNA's 64-wide wavefronts: lane = tid & 63,
 * leaders write wave_sums[tid >> 6], xor shuffles 32..1, final count blockDim.x / warpSize.
 * Width 64: exact. Width 32 (RDNA wave32, NVIDIA): the offset-32 step returns each lane's own
 * value (doubling it), only 4 leaders write while 8 slots are read (4 zeroed), and the final
 * stage doubles again: every block partial is 4x the sum of half its threads. Deterministic. */

#define NTHREADS 256
#define CHUNK 1024

__device__ __forceinline__ float wave_sum64(float v)
{
    for (int offset = 32; offset > 0; offset >>= 1)
        v += __shfl_xor(v, offset);
    return v;
}

extern "C" __global__ void reduce_wave64(const float *__restrict__ x, float *__restrict__ partials,
                                         int n)
{
    /* 64 slots: enough for blockDim.x / warpSize at every width down to 4, zeroed so the
     * unwritten ones read as zero rather than stale LDS */
    __shared__ float wave_sums[64];
    const int tid = threadIdx.x;
    const int lane = tid & 63;
    const int wave = tid >> 6;
    if (tid < 64)
        wave_sums[tid] = 0.0f;

    size_t base = (size_t)blockIdx.x * CHUNK;
    float v = 0.0f;
    for (int i = 0; i < CHUNK / NTHREADS; ++i) {
        size_t idx = base + tid + (size_t)i * NTHREADS;
        if (idx < (size_t)n)
            v += x[idx];
    }
    __syncthreads();

    v = wave_sum64(v);
    if (lane == 0)
        wave_sums[wave] = v;
    __syncthreads();

    if (wave == 0) {
        v = (tid < (int)(blockDim.x / warpSize)) ? wave_sums[lane] : 0.0f;
        v = wave_sum64(v);
        if (tid == 0)
            partials[blockIdx.x] = v;
    }
}
