// unstaged.cu: a template tiled SGEMM (op ABI A, B, C, M, N, K) that forgets to stage its
// first tile of A in every odd column of blocks: those blocks read shared memory they never
// wrote. Claimed correct, it must FAIL, and its repeats must read the same poison as its first
// launch (the same output: FAIL wrong, not nondeterministic), whichever copy runs them.
template <int TILE>
__global__ void unstaged_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        if (k0 > 0 || blockIdx.x % 2 == 0)
            As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
