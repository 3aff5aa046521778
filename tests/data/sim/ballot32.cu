/* ballot32.cu: a CUDA warp-32 reduction that is right on NVIDIA and wrong once ported to
 * 64-wide wavefronts (reduce ABI, 256 threads, chunk 1024): the ballot is kept in an
 * `unsigned`, so after hipify (64-bit __ballot) lanes 32..63 vanish from the count that
 * feeds the gather. Brief section 2, pattern 1. Ours, written to be wrong: do not fix. */
__global__ void ballot32(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[64]; /* 256 threads / the narrowest width, 4 */
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * 1024;
    float v = 0.0f;
    for (int k = tid; k < 1024; k += blockDim.x)
        if (base + k < (size_t)n)
            v += x[base + k];
    unsigned active = __ballot_sync(0xffffffffu, 1); /* the port's 64-bit ballot, truncated */
    int n_active = __popc(active);
    float s = 0.0f;
    for (int i = 0; i < n_active; ++i)
        s += __shfl_sync(0xffffffffu, v, i);
    if (tid % warpSize == 0)
        warp_sums[tid / warpSize] = s;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < (int)blockDim.x / warpSize; ++w)
            total += warp_sums[w];
        partials[blockIdx.x] = total;
    }
}
