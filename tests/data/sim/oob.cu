/* oob.cu: known-bad SGEMM kernels (op ABI A, B, C, M, N, K) for the emulator's exact access
 * checks. Each computes C = A * B like sgemm_naive and adds one out-of-bounds bug; none is
 * caught by the core's guard bands alone. Ours, written to be wrong: do not fix. */

/* Off-by-one row guard: the threads of row M read one row past the end of A, whose guard
 * words are a quiet NaN, and store the NaN they compute one row past the end of C, where it
 * lands on the same guard words unchanged: the band looks intact. */
__global__ void oob_read_write(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row > M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}

/* Correct C, and the last thread also writes `far` bytes past the end of C: beyond the
 * 4096-byte guard band. */
static __device__ void sgemm_then_far(const float *A, const float *B, float *C, int M, int N,
                                      int K, size_t far)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
    if (row == M - 1 && col == N - 1)
        C[(size_t)M * N + far / sizeof(float)] = acc;
}

__global__ void oob_far8k(const float *A, const float *B, float *C, int M, int N, int K)
{
    sgemm_then_far(A, B, C, M, N, K, 8192);
}

__global__ void oob_far64k(const float *A, const float *B, float *C, int M, int N, int K)
{
    sgemm_then_far(A, B, C, M, N, K, 65536);
}

/* Correct C; each thread prefetches the A element after its row's last one, which for the
 * last row is past the end of A. The value is never used: a read-only bug. */
__global__ void oob_read_only(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f, next = A[(size_t)row * K];
    for (int k = 0; k < K; ++k) {
        float a = next;
        next = A[(size_t)row * K + k + 1];
        acc = fmaf(a, B[(size_t)k * N + col], acc);
    }
#ifdef __CUDA_ARCH__ /* keeps the last load, emits nothing: PTX and x86 name a float register differently */
    asm volatile("" : : "f"(next));
#else
    asm volatile("" : : "x"(next));
#endif
    C[(size_t)row * N + col] = acc;
}

/* A float4 load from A + 1: misaligned for a 16-byte vector, a fault on a GPU. */
__global__ void misaligned_vec(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float4 v = reinterpret_cast<const float4 *>(A + 1)[0];
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc + 0.0f * v.x;
}
