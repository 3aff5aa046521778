// host_thrust.cu: a whole file whose host code keeps its data in Thrust's containers, a library
// the emulator does not provide: a SKIP that names <thrust/device_vector.h>. The kernel is a
// plain SGEMM (the op's ABI). Written for the harness's tests.
#include <thrust/device_vector.h>

extern "C" __global__ void thrust_gemm(const float *A, const float *B, float *C, int M, int N, int K)
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
    thrust::device_vector<float> x(16);
    return 0;
}
