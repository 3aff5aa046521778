/* shuffles.cu: butterflies over 16-lane segments of a block of 80 threads (its last warp is
 * partial at every width), then each segment's sum gathered by a shuffle whose source lane
 * differs between segments, so that both the scheduler's path for a shuffle every lane makes
 * alike and its general path are exercised. Needs warps of 16 lanes at least. */
#define THREADS 80
#define SEG 16

extern "C" __global__ void segment_shuffle_reduce(const float *x, float *partials, int n)
{
    __shared__ float seg_sums[THREADS / SEG];
    const int tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * 1024;
    float v = 0.0f;
    for (int i = tid; i < 1024; i += THREADS)
        if (base + i < (size_t)n)
            v += x[base + i];
    for (int offset = SEG / 2; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset, SEG);
    /* Every lane now holds its segment's sum; read it again from the segment's last lane. */
    const int first = tid - tid % SEG;
    v = __shfl_sync(0xffffffffu, v, (first + SEG - 1) % warpSize);
    if (tid % SEG == 0)
        seg_sums[tid / SEG] = v;
    __syncthreads();
    if (tid == 0) {
        float s = 0.0f;
        for (int k = 0; k < THREADS / SEG; ++k)
            s += seg_sums[k];
        partials[blockIdx.x] = s;
    }
}
