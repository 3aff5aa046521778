// whole_reduce.hip: a complete HIP program, as a user keeps one and builds it with
// `hipcc whole_reduce.hip`: a reduction in a namespace, launched with hipLaunchKernelGGL and its
// template arguments given through HIP_KERNEL_NAME, and main() with hipMalloc, hipMemcpy,
// events, a stream, device queries and error checks. Block b sums
// x[b*1024 .. min(n, (b+1)*1024)) into partials[b]; right at any wavefront width. The harness
// runs the kernel only. Written for its tests.
#include <cstdio>
#include <hip/hip_runtime.h>
#include <vector>

#define HIP_CHECK(call)                                                                            \
    do {                                                                                           \
        hipError_t err_ = (call);                                                                  \
        if (err_ != hipSuccess) {                                                                  \
            std::fprintf(stderr, "%s: %s\n", #call, hipGetErrorString(err_));                      \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

namespace real {

template <int THREADS, int CHUNK>
__global__ void block_sum(const float *x, float *partials, int n)
{
    __shared__ float part[THREADS];
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * CHUNK;
    float s = 0.0f;
    for (int i = tid; i < CHUNK; i += THREADS)
        if (base + i < (size_t)n)
            s += x[base + i];
    part[tid] = s;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (tid < half)
            part[tid] += part[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        partials[blockIdx.x] = part[0];
}

} // namespace real

int main()
{
    const int n = 1 << 20, blocks = (n + 1023) / 1024;
    std::vector<float> hx(n, 1.0f), hp(blocks);
    float *x, *p;
    HIP_CHECK(hipMalloc(&x, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&p, blocks * sizeof(float)));
    HIP_CHECK(hipMemcpy(x, hx.data(), n * sizeof(float), hipMemcpyHostToDevice));
    hipDeviceProp_t prop;
    HIP_CHECK(hipGetDeviceProperties(&prop, 0));
    std::printf("%s: wavefront %d\n", prop.name, prop.warpSize);
    hipStream_t stream;
    hipEvent_t start, stop;
    HIP_CHECK(hipStreamCreate(&stream));
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));
    HIP_CHECK(hipEventRecord(start, stream));
    hipLaunchKernelGGL(HIP_KERNEL_NAME(real::block_sum<256, 1024>), dim3(blocks), dim3(256), 0, stream, x, p, n);
    HIP_CHECK(hipGetLastError());
    // The null stream by its flag's name, as ROCm's examples launch.
    real::block_sum<256, 1024><<<dim3(blocks), dim3(256), 0, hipStreamDefault>>>(x, p, n);
    HIP_CHECK(hipEventRecord(stop, stream));
    HIP_CHECK(hipEventSynchronize(stop));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
    HIP_CHECK(hipMemcpy(hp.data(), p, blocks * sizeof(float), hipMemcpyDeviceToHost));
    double sum = 0;
    for (float v : hp)
        sum += v;
    std::printf("sum %.0f in %.3f ms\n", sum, ms);
    HIP_CHECK(hipFree(x));
    HIP_CHECK(hipFree(p));
    return sum == n ? 0 : 1;
}
