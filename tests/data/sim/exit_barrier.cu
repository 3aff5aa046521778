/* exit_barrier.cu: three quarters of each block leave after the first barrier; the 64
 * threads left reduce through shared memory across six more barriers. Exited threads hold no
 * barrier up (as on current GPUs), so every barrier after the first releases part of the
 * block: the scheduler's path for that must wake exactly the threads waiting. */
extern "C" __global__ void exit_barrier_reduce(const float *x, float *partials, int n)
{
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * 1024;
    float v = 0.0f;
    for (int i = 0; i < 4; ++i) {
        size_t idx = base + tid + (size_t)i * 256;
        if (idx < (size_t)n)
            v += x[idx];
    }
    s[tid] = v;
    __syncthreads();
    if (tid >= 64)
        return;
    v += s[tid + 64] + s[tid + 128] + s[tid + 192];
    __syncthreads(); /* every thread has read its four sums before any is overwritten */
    s[tid] = v;
    __syncthreads();
    for (int stride = 32; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = s[0];
}
