// SPDX-License-Identifier: MIT
// typed.cu: reductions of every form the reduce op knows (tests/data/reduce_types/*.manifest):
// block partials of i32, u32, f32, f64 and f16 data under sum, max and min, and single totals
// written by atomics. 256 threads; a block combines its 256 elements (chunk = 256).
#include <cuda_fp16.h>
#include <limits.h>

#define THREADS 256

template <typename T>
struct Sum {
    __device__ T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct Max {
    __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
template <typename T>
struct Min {
    __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};

// A shared-memory tree with a barrier at every level: right at every width.
template <typename T, typename Op>
__device__ T block_tree(T v, Op op)
{
    __shared__ T s[THREADS];
    int tid = threadIdx.x;
    s[tid] = v;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (tid < half)
            s[tid] = op(s[tid], s[tid + half]);
        __syncthreads();
    }
    return s[0];
}

template <typename T, typename Op>
__device__ void block_partial(const T *x, T *partials, int n, T identity, Op op)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    T v = block_tree(i < n ? x[i] : identity, op);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

__global__ void sum_i32(const int *x, int *partials, int n) { block_partial(x, partials, n, 0, Sum<int>()); }
__global__ void max_u32(const unsigned *x, unsigned *partials, int n) { block_partial(x, partials, n, 0u, Max<unsigned>()); }
__global__ void min_f32(const float *x, float *partials, int n)
{
    block_partial(x, partials, n, __int_as_float(0x7f800000), Min<float>());
}
__global__ void max_i32(const int *x, int *partials, int n, int identity)
{
    block_partial(x, partials, n, identity, Max<int>());
}
__global__ void sum_f64(const double *x, double *partials, int n) { block_partial(x, partials, n, 0.0, Sum<double>()); }

// f16 in, f32 partials: each half widened before it is added.
__global__ void sum_f16(const __half *x, float *partials, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    float v = block_tree(i < n ? __half2float(x[i]) : 0.0f, Sum<float>());
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

// One total: every block's tree result added (or maxed) into *total with one atomic.
__global__ void atomic_sum_i32(const int *x, int *total, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    int v = block_tree(i < n ? x[i] : 0, Sum<int>());
    if (threadIdx.x == 0)
        atomicAdd(total, v);
}
__global__ void atomic_max_i32(const int *x, int *total, int n, int identity)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    int v = block_tree(i < n ? x[i] : identity, Max<int>());
    if (threadIdx.x == 0)
        atomicMax(total, v);
}
__global__ void atomic_sum_f32(const float *x, float *total, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    float v = block_tree(i < n ? x[i] : 0.0f, Sum<float>());
    if (threadIdx.x == 0)
        atomicAdd(total, v);
}
