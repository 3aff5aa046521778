/* gate.cu: good/gate.cu with a planted bug (every element off by one), the upgrade that
 * the gate of tests/integration/trust.sh must refuse. */
#include <cuda_runtime.h>

extern "C" __global__ void gate_k(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc + 1.0f; /* the bug */
}
