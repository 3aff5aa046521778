// SPDX-License-Identifier: MIT
// typed.hip: the reduce op's forms as a HIP source (typed_hip.manifest): an i32 sum per block,
// a u32 max per block, an f64 sum per block and an i32 max into one total with atomicMax. A
// shared-memory tree with a barrier at every level: right at every width, wave64 included.
#include <hip/hip_runtime.h>
#include <limits.h>

#define THREADS 256

template <typename T, bool MAX>
__device__ T tree(T v)
{
    __shared__ T s[THREADS];
    int tid = threadIdx.x;
    s[tid] = v;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (tid < half)
            s[tid] = MAX ? (s[tid + half] > s[tid] ? s[tid + half] : s[tid]) : s[tid] + s[tid + half];
        __syncthreads();
    }
    return s[0];
}

__global__ void sum_i32(const int *x, int *partials, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x, v = tree<int, false>(i < n ? x[i] : 0);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

__global__ void max_u32(const unsigned *x, unsigned *partials, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    unsigned v = tree<unsigned, true>(i < n ? x[i] : 0u);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

__global__ void sum_f64(const double *x, double *partials, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    double v = tree<double, false>(i < n ? x[i] : 0.0);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

__global__ void atomic_max_i32(const int *x, int *total, int n, int identity)
{
    int i = blockIdx.x * THREADS + threadIdx.x, v = tree<int, true>(i < n ? x[i] : identity);
    if (threadIdx.x == 0)
        atomicMax(total, v);
}
