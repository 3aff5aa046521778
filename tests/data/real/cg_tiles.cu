// cg_tiles.cu: block sums through cooperative groups as CUDA 12/13 has them: a
// cg::block_tile_memory, tiles wider than a warp (thread_block_tile<64> and <128>), a run-time
// tiled_partition as wide as 64 threads, cg::reduce with plus, less and greater, sync,
// meta_group_rank and meta_group_size, beside the host code that launches them, a profiler
// range included. Each block of 256 threads sums its 256 elements of x; a wrong max or min from
// cg::greater or cg::less makes the partial NaN. Written for the harness's tests.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cuda_profiler_api.h>

namespace cg = cooperative_groups;

// One tile of TILE threads reduces with cg::reduce; tile leaders meet in shared memory.
template <unsigned TILE>
__global__ void tile_sum(const float *x, float *partials, int n)
{
    __shared__ cg::block_tile_memory<256> scratch;
    __shared__ float leaders[256 / TILE];
    cg::thread_block cta = cg::this_thread_block(scratch);
    cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(cta);
    unsigned i = blockIdx.x * 256 + cta.thread_rank();
    float v = i < (unsigned)n ? x[i] : 0.0f;
    float sum = cg::reduce(tile, v, cg::plus<float>());
    float hi = cg::reduce(tile, v, cg::greater<float>()), lo = cg::reduce(tile, v, cg::less<float>());
    if (v > hi || v < lo)
        sum = __int_as_float(0x7fc00000);
    if (tile.thread_rank() == 0)
        leaders[tile.meta_group_rank()] = sum;
    cg::sync(cta);
    if (cta.thread_rank() == 0) {
        float total = 0.0f;
        for (unsigned t = 0; t < tile.meta_group_size(); t++)
            total += leaders[t];
        partials[blockIdx.x] = total;
    }
}

// A tree in shared memory within run-time tiles of 64 threads, synced by the tile.
__global__ void group_tree_sum(const float *x, float *partials, int n)
{
    __shared__ float s[256], leaders[4];
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_group g = cg::tiled_partition(cta, 64);
    unsigned tid = cta.thread_rank(), i = blockIdx.x * 256 + tid;
    s[tid] = i < (unsigned)n ? x[i] : 0.0f;
    g.sync();
    for (unsigned half = g.size() / 2; half > 0; half /= 2) {
        if (g.thread_rank() < half)
            s[tid] += s[tid + half];
        g.sync();
    }
    if (g.thread_rank() == 0)
        leaders[tid / 64] = s[tid];
    cta.sync();
    if (tid == 0)
        partials[blockIdx.x] = (leaders[0] + leaders[1]) + (leaders[2] + leaders[3]);
}

template __global__ void tile_sum<64>(const float *, float *, int);

int main()
{
    float *x = nullptr, *p = nullptr;
    int n = 1 << 20;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&p, (n / 256) * sizeof(float));
    cudaProfilerStart();
    tile_sum<128><<<n / 256, 256>>>(x, p, n);
    group_tree_sum<<<n / 256, 256>>>(x, p, n);
    cudaProfilerStop();
    std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
