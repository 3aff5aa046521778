// block_sum.cu: the kernels of the example CMake project (examples/cmake/README.md). Block b
// sums x[b*1024 .. min(n, (b+1)*1024)) into partials[b] with 256 threads: a strided loop,
// a shuffle ladder within each warp, then thread 0 adds the warps' sums in order.
// block_sum is right at any warp width. block_sum_w32 is its twin as a port from 32-lane
// warps leaves it: the ladder starts at offset 16, so on a 64-wide wavefront each leader adds
// only its own half of the warp, and on a narrower warp the offsets past its width return
// the caller's own value, counted twice.
#define THREADS 256
#define CHUNK 1024
#define MIN_WIDTH 4 // the narrowest warp the emulator runs: the most warp sums a block has

__device__ float thread_sum(const float *x, int n)
{
    int end = min(n, (int)(blockIdx.x + 1) * CHUNK);
    float s = 0.0f;
    for (int i = blockIdx.x * CHUNK + threadIdx.x; i < end; i += THREADS)
        s += x[i];
    return s;
}

__device__ void store_block_sum(float *warp_sums, float s, float *partials)
{
    int tid = threadIdx.x;
    if (tid % warpSize == 0)
        warp_sums[tid / warpSize] = s;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < THREADS / warpSize; ++w)
            total += warp_sums[w];
        partials[blockIdx.x] = total;
    }
}

extern "C" __global__ void block_sum(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[THREADS / MIN_WIDTH];
    float s = thread_sum(x, n);
    for (int off = warpSize / 2; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off, warpSize);
    store_block_sum(warp_sums, s, partials);
}

extern "C" __global__ void block_sum_w32(const float *x, float *partials, int n)
{
    __shared__ float warp_sums[THREADS / MIN_WIDTH];
    float s = thread_sum(x, n);
    for (int off = 16; off > 0; off /= 2) // the bug: 16 is half of 32, not of warpSize
        s += __shfl_down_sync(0xffffffffu, s, off, warpSize);
    store_block_sum(warp_sums, s, partials);
}
