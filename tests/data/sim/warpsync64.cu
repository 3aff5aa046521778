/* warpsync64.cu: the brief's own bug, known-bad (reduce ABI, 256 threads, chunk 1024): after a
 * barrier tree to 128 partials, `if (tid < 64)` on a volatile shared array, +64, +32 .. +1, no
 * barrier, no __syncwarp. Right on lockstep 64-wide wavefronts; on 32-wide warps the two warps
 * race (H200: about 3% off, differently each run). The lockstep schedule hides it, the random
 * one shows it. Ours, written to be wrong: do not fix. */
__global__ void warpsync64(const float *x, float *partials, int n)
{
    __shared__ float sm[256];
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * 1024;
    float s = 0.0f;
    for (int r = 0; r < 4; ++r) {
        size_t i = base + tid + (size_t)r * 256;
        if (i < (size_t)n)
            s += x[i];
    }
    sm[tid] = s;
    __syncthreads();
    if (tid < 128)
        sm[tid] += sm[tid + 128];
    __syncthreads();
    if (tid < 64) {
        volatile float *v = sm;
        v[tid] += v[tid + 64];
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
