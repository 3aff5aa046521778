// canary_ballot32.hip: known-bad reduce (brief section 2, pattern 1): the 64-bit __ballot
// is stored in 32 bits and popcounted, so on 64-wide wavefronts lanes 32..63 vanish from
// the gather that feeds the sum. Correct at widths up to 32; at 64 every block partial is
// deterministically short by its upper half-wavefronts. Reduce ABI, 256 threads, chunk 1024.
#include <hip/hip_runtime.h>

extern "C" __global__ void canary_ballot32(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[64]; // 256 threads / the narrowest width, 4
    const int tid = threadIdx.x;
    const long base = (long)blockIdx.x * 1024;
    float v = 0.0f;
    for (int k = tid; k < 1024; k += blockDim.x)
        if (base + k < n)
            v += x[base + k];

    unsigned int active = __ballot(1); // BUG: the 64-bit ballot truncated to 32 bits
    int n_active = __popc(active);
    float s = 0.0f;
    for (int i = 0; i < n_active; ++i) // every lane gathers lanes 0..n_active-1
        s += __shfl(v, i);

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
