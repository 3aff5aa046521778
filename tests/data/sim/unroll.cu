// unroll.cu: a bounds-checked SGEMM (one C element per thread) whose loops carry every
// spelling of nvcc's unroll pragma: none, a count, a macro's name, parentheses, 1 (keep
// rolled), and _Pragma from a macro. The emulator rewrites them for g++ (sim_unroll.c);
// each must still build and compute the same C.
#define PARTS 4
#define UNROLL_ALL _Pragma("unroll")

extern "C" __global__ void unroll_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N)
        return;
    float part[PARTS];
#pragma unroll
    for (int p = 0; p < PARTS; ++p)
        part[p] = 0.0f;
    int k = 0;
    for (; k + PARTS <= K; k += PARTS) {
#pragma unroll PARTS
        for (int p = 0; p < PARTS; ++p)
            part[p] += A[row * K + k + p] * B[(k + p) * N + col];
    }
#pragma unroll 1
    for (; k < K; ++k)
        part[0] += A[row * K + k] * B[k * N + col];
    float acc = 0.0f;
#pragma unroll (2)
    for (int p = 0; p < PARTS; ++p)
        acc += part[p];
    UNROLL_ALL
    for (int p = 0; p < 1; ++p)
        C[row * N + col] = acc;
}
