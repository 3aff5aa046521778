// host_graph.cu: a whole file whose host code captures its launch in a CUDA graph, a part of the
// runtime the emulator does not declare: its build stops at cudaGraphCreate, a SKIP that names
// it (never a pass, and a run of it alone exits 4). The kernel itself is a plain SGEMM (the op's
// ABI). Written for the harness's tests.
#include <cuda_runtime.h>

extern "C" __global__ void graph_gemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

int main()
{
    cudaGraph_t graph;
    cudaGraphCreate(&graph, 0);
    return 0;
}
