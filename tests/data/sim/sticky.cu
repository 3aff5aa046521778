/* sticky.cu: a known-bad SGEMM kernel (op ABI A, B, C, M, N, K) for the emulator's unchecked
 * repeats. It computes C = A * B right, then leaves a __device__ global set for the next
 * launch, which adds it to every element: on a GPU, and on the emulator, the repeat differs
 * from the first launch. A repeat run from a second, freshly loaded copy of the kernel would
 * see the global unset and agree with it. Ours, written to be wrong: do not fix. */
__device__ float sticky_bias;

__global__ void sticky_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = sticky_bias;
        for (int k = 0; k < K; ++k)
            acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
        C[(size_t)row * N + col] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && blockIdx.x == gridDim.x - 1 && blockIdx.y == gridDim.y - 1)
        sticky_bias = 0.5f;
}
