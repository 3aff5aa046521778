// SPDX-License-Identifier: MIT
// broken.cu: the broken twins of typed.cu, each wrong for one reason the reduce op must name.
#include <limits.h>

#define THREADS 256

// max over i32 starting from 0, not INT_MIN: right while a block holds a positive value,
// wrong on all-negative data (dist=cancel).
__global__ void max_i32_from_zero(const int *x, int *partials, int n)
{
    __shared__ int s[THREADS];
    int tid = threadIdx.x, i = blockIdx.x * THREADS + tid;
    s[tid] = i < n ? x[i] : 0;
    if (s[tid] < 0)
        s[tid] = 0;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (tid < half && s[tid + half] > s[tid])
            s[tid] = s[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = s[0];
}

// An f64 sum accumulated in float: within f32's bound, far outside f64's.
__global__ void sum_f64_in_float(const double *x, double *partials, int n)
{
    __shared__ float s[THREADS];
    int tid = threadIdx.x, i = blockIdx.x * THREADS + tid;
    s[tid] = i < n ? (float)x[i] : 0.0f;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (tid < half)
            s[tid] += s[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = s[0];
}

// An int sum written for 32 lanes: a shuffle tree over the warp, then one partial per 32
// threads, its leaders elected by the real width. At width 64 the leaders of the upper
// 32-lane halves are never elected, so their sums are lost (their slots keep the poison).
__global__ void sum_i32_warp32(const int *x, int *partials, int n)
{
    __shared__ int warps[THREADS / 32];
    int tid = threadIdx.x, i = blockIdx.x * THREADS + tid;
    int v = i < n ? x[i] : 0;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % warpSize == 0)
        warps[tid / 32] = v;
    __syncthreads();
    if (tid == 0) {
        int total = 0;
        for (int w = 0; w < THREADS / 32; w++)
            total += warps[w];
        partials[blockIdx.x] = total;
    }
}

// One total from atomics, where only the first block's add lands: the others overwrite.
__global__ void atomic_sum_i32_store(const int *x, int *total, int n)
{
    __shared__ int s[THREADS];
    int tid = threadIdx.x, i = blockIdx.x * THREADS + tid;
    s[tid] = i < n ? x[i] : 0;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (tid < half)
            s[tid] += s[tid + half];
        __syncthreads();
    }
    if (tid == 0 && blockIdx.x == 0)
        *total = s[0];
}
