/* scan_shfl: inclusive prefix sums within blocks of 4 * blockDim.x floats (1024 with 256
 * threads, 320 with 80), the warp-shuffle form, width-generic: every step, lane and warp
 * count comes from warpSize at run time. Each thread scans 4 consecutive elements, a
 * __shfl_up scan over the warp gives each thread its warp-inclusive total, the last lane
 * that exists in each warp stores the warp's total (a block that is no multiple of the width
 * ends in a partial warp), warp 0 scans those totals warpSize at a time with a carry, and
 * each element adds its warp's offset and its lane's exclusive total. partials[b] is block
 * b's total. Masks are __activemask(): the lanes of a partial warp, all of a full one. */
#include <cuda_runtime.h>

#define SCAN_MAX_THREADS 256
#define SCAN_MIN_WIDTH 4
#define SCAN_ITEMS 4

/* Inclusive scan of v over the warp's lanes. */
__device__ __forceinline__ float scan_warp(float v, int lane)
{
    for (int d = 1; d < warpSize; d <<= 1) {
        float t = __shfl_up_sync(__activemask(), v, d);
        if (lane >= d)
            v += t;
    }
    return v;
}

/* Warp 0: totals[0 .. warps) becomes its inclusive scan. */
__device__ __forceinline__ void scan_warp_totals(float *totals, int warps, int lane)
{
    float carry = 0.0f;
    for (int base = 0; base < warps; base += warpSize) {
        float w = scan_warp(base + lane < warps ? totals[base + lane] : 0.0f, lane);
        if (base > 0)
            w += carry;
        if (base + lane < warps)
            totals[base + lane] = w;
        carry = __shfl_sync(__activemask(), w, warpSize - 1);
    }
}

extern "C" __global__ void scan_shfl(const float *x, float *y, float *partials, int n)
{
    __shared__ float totals[SCAN_MAX_THREADS / SCAN_MIN_WIDTH];
    const int tid = threadIdx.x, threads = blockDim.x;
    const int lane = tid % warpSize, warp = tid / warpSize;
    const int warps = (threads + warpSize - 1) / warpSize;
    const int last = min(warpSize, threads - warp * warpSize) - 1;
    const long first = (long)blockIdx.x * threads * SCAN_ITEMS + (long)tid * SCAN_ITEMS;
    float v[SCAN_ITEMS], run = 0.0f;
    for (int i = 0; i < SCAN_ITEMS; ++i) {
        run += first + i < n ? x[first + i] : 0.0f;
        v[i] = run;
    }
    const float inclusive = scan_warp(run, lane);
    float exclusive = __shfl_up_sync(__activemask(), inclusive, 1);
    if (lane == last)
        totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0)
        scan_warp_totals(totals, warps, lane);
    __syncthreads();
    if (lane == 0)
        exclusive = 0.0f;
    const float before = warp > 0 ? totals[warp - 1] + exclusive : exclusive;
    for (int i = 0; i < SCAN_ITEMS; ++i)
        if (first + i < n)
            y[first + i] = before + v[i];
    if (tid == threads - 1)
        partials[blockIdx.x] = totals[warps - 1];
}
