// whole_gemm.cu: a complete CUDA program, as a user keeps one and builds it with
// `nvcc whole_gemm.cu`: kernels in a namespace (a tile-size template with an explicit
// instantiation, a static member's helper, a template launched with its argument deduced), a
// __host__ __device__ helper, a host template, and main() with allocations, copies, events, a
// stream, device queries, an attribute, launches with and without shared memory and stream (one
// under an `if`, one over two lines), error checks, a profiler range, <chrono>, <iostream>,
// <vector>, <memory> and an exception. The harness runs the kernels only. Written for its tests.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));     \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

namespace real {

struct Scale {
    __device__ static float apply(float alpha, float acc, float beta, float c) { return alpha * acc + beta * c; }
};

// C = alpha * A * B + beta * C, row-major, BLAS argument order, any M, N, K.
template <int TILE>
__global__ void gemm(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                     float *C, int ldc)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < ceil_div(K, TILE); ++t) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[(size_t)row * lda + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[(size_t)kb * ldb + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * ldc + col] = Scale::apply(alpha, acc, beta, C[(size_t)row * ldc + col]);
}

template __global__ void gemm<8>(int, int, int, float, const float *, int, const float *, int, float, float *, int);

// Launched with its template argument deduced from the call, as nvcc allows.
template <typename T>
__global__ void scale(T *x, T by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= by;
}

} // namespace real

template <typename T>
static void fill(std::vector<T> &v, T value)
{
    for (auto &x : v)
        x = value;
}

static void run(int M, int N, int K)
{
    std::vector<float> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N);
    fill(hA, 1.0f), fill(hB, 2.0f), fill(hC, 0.0f);
    auto scratch = std::make_shared<std::vector<float>>(hC);
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, hA.size() * sizeof(float)));
    CHECK(cudaMalloc((void **)&B, hB.size() * sizeof(float)));
    CHECK(cudaMalloc(&C, hC.size() * sizeof(float)));
    CHECK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s: %d SMs, warp %d\n", prop.name, prop.multiProcessorCount, prop.warpSize);
    CHECK(cudaFuncSetAttribute(real::gemm<16>, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    dim3 block(16, 16), grid(ceil_div(N, 16), ceil_div(M, 16));
    auto t0 = std::chrono::steady_clock::now();
    cudaProfilerStart();
    CHECK(cudaEventRecord(start, stream));
    real::gemm<16><<<grid, block, 0, stream>>>(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
    CHECK(cudaGetLastError());
    real::gemm<8><<<dim3(ceil_div(N, 8), ceil_div(M, 8)), dim3(8, 8)>>>(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
    if (M * N > 0)
        real::scale<<<ceil_div(M * N, 256), 256, 0,
                      stream>>>(C, 1.0f, M * N);
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    cudaProfilerStop();
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(hC.data(), C, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    std::cout << "gemm " << M << "x" << N << "x" << K << ": " << ms << " ms (" << took.count() << " s)" << std::endl;
    if (hC[0] != 2.0f * K)
        throw std::runtime_error("wrong result");
    cudaEventDestroy(start), cudaEventDestroy(stop), cudaStreamDestroy(stream);
    cudaFree(A), cudaFree(B), cudaFree(C);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 256;
    try {
        run(n, n, n);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    std::printf("ok\n");
}
