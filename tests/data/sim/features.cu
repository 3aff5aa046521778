// features.cu: a user's SGEMM as real-world sources are written (op ABI A, B, C, M, N, K):
// no #include <cuda_runtime.h> (nvcc includes it implicitly), C++ linkage, a warning,
// `uint`, __launch_bounds__, __restrict__, __ldg, #pragma unroll, float4 loads through
// reinterpret_cast, half precision and cooperative groups. Correct for any M, N, K.
#include <cooperative_groups.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

#define TILE 16

__global__ void __launch_bounds__(256) feature_sgemm(const float *__restrict__ A,
                                                     const float *__restrict__ B,
                                                     float *__restrict__ C, int M, int N, int K)
{
    cg::thread_block block = cg::this_thread_block();
    uint col = blockIdx.x * TILE + threadIdx.x;
    uint row = blockIdx.y * TILE + threadIdx.y;
    int unused; // a warning (-Wunused-variable), which must not stop a user's build
    bool mine = row < (uint)M && col < (uint)N;
    float acc = 0.0f;
    int k = 0;
    if (mine && K % 4 == 0) {
        // rows of A are 16-byte aligned when K is a multiple of 4
        const float4 *a4 = reinterpret_cast<const float4 *>(A + (size_t)row * K);
#pragma unroll 2
        for (; k + 4 <= K; k += 4) {
            float4 a = a4[k / 4];
            acc = fmaf(a.x, __ldg(&B[(size_t)(k + 0) * N + col]), acc);
            acc = fmaf(a.y, __ldg(&B[(size_t)(k + 1) * N + col]), acc);
            acc = fmaf(a.z, __ldg(&B[(size_t)(k + 2) * N + col]), acc);
            acc = fmaf(a.w, __ldg(&B[(size_t)(k + 3) * N + col]), acc);
        }
    }
    if (mine)
        for (; k < K; ++k)
            acc = fmaf(__ldg(&A[(size_t)row * K + k]), __ldg(&B[(size_t)k * N + col]), acc);
    block.sync();
    // exactly 1, computed in half precision
    __half two = __hadd(__float2half(1.0f), __float2half(1.0f));
    float one = __half2float(__hdiv(two, __float2half(2.0f)) * __half(1.0f));
    // a tile of 4 threads counts its threads that own an element of C
    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(block);
    int owners = cg::reduce(quad, (int)mine, cg::plus<int>());
    if (mine && owners > 0)
        C[(size_t)row * N + col] = acc * one;
}

// A template-id entry with the op's ABI: the manifest names it `sgemm_tmpl<16>`.
template <int T>
__global__ void sgemm_tmpl(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * T + threadIdx.x;
    int row = blockIdx.y * T + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
