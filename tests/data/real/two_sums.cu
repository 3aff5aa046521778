// two_sums.cu: three block sums in one file, as reduction samples keep them: one through a
// SharedMemory<T> helper whose `extern __shared__` sits in a class template's member (g++ then
// calls its C++ init function unconditionally), one with a static shared array, and one that
// writes 256 bytes past its own shared array, where the file's other kernels' arrays would be
// if one object held them all. Each block of 256 threads sums its 256 elements. Written for the
// harness's tests.
template <class T>
struct SharedMemory {
    __device__ inline operator T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T>
__global__ void sum_dynamic(const T *x, T *partials, unsigned n)
{
    T *s = SharedMemory<T>();
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (tid < half)
            s[tid] += s[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = s[0];
}

__global__ void sum_static(const float *x, float *partials, unsigned n)
{
    __shared__ float s[256], spare[4096];
    unsigned tid = threadIdx.x, i = blockIdx.x * 256 + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    spare[tid] = 0.0f;
    __syncthreads();
    for (unsigned half = 128; half > 0; half >>= 1) {
        if (tid < half)
            s[tid] += s[tid + half] + spare[tid];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = s[0];
}

__global__ void sum_overrun(const float *x, float *partials, unsigned n)
{
    __shared__ float s[256];
    unsigned tid = threadIdx.x, i = blockIdx.x * 256 + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (unsigned k = 0; k < 256; k++)
            total += s[k];
        s[256 + 64] = total; /* past the array: a shared-memory overrun */
        partials[blockIdx.x] = total;
    }
}

template __global__ void sum_dynamic<float>(const float *, float *, unsigned);

int main()
{
    sum_static<<<1, 256>>>(nullptr, nullptr, 0);
    sum_overrun<<<1, 256>>>(nullptr, nullptr, 0);
    return 0;
}
