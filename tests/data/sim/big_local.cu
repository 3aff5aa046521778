// big_local.cu: an SGEMM (op ABI A, B, C, M, N, K) for 32 x 32 blocks whose threads each keep
// a 96 KiB local array: valid CUDA (a GPU gives a thread up to 512 KiB of local memory), but
// past the stack the emulator gives the later lanes of a 1024-thread block. The run must name
// that limit, not die as a bare crash.
__global__ void big_local_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    float scratch[24 * 1024];
    int row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
    if (row >= M || col >= N)
        return;
    for (int k = 0; k < K; ++k)
        scratch[k % (24 * 1024)] = A[(size_t)row * K + k] * B[(size_t)k * N + col];
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += scratch[k % (24 * 1024)];
    C[(size_t)row * N + col] = acc;
}
