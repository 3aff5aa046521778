// dynshared.cu: a tiled SGEMM (op ABI, 16 x 16 threads) whose tiles live in dynamic shared
// memory, 2 KiB per block (shared_bytes = 2048): A's tile through one `extern __shared__`
// name, B's through another in a helper, which CUDA places at the same address.
#define T 16

__device__ float *b_tile(void)
{
    extern __shared__ float tiles[];
    return tiles + T * T;
}

__global__ void dyn_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    extern __shared__ float smem[];
    float *As = smem, *Bs = b_tile();
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty * T + tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty * T + tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty * T + k] * Bs[k * T + tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
