/* slow.cu: a kernel whose compile takes seconds (constant expressions the compiler must
 * evaluate), so that --timeout 1 kills its build halfway in tests/integration/trust.sh. */
#include <cuda_runtime.h>

constexpr unsigned slow_sum(unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += i ^ (s >> 3);
    return s;
}
static_assert(slow_sum(250000) != 1, "seconds of compile time");
static_assert(slow_sum(250001) != 1, "seconds of compile time");
static_assert(slow_sum(250002) != 1, "seconds of compile time");
static_assert(slow_sum(250003) != 1, "seconds of compile time");
static_assert(slow_sum(250004) != 1, "seconds of compile time");
static_assert(slow_sum(250005) != 1, "seconds of compile time");
static_assert(slow_sum(250006) != 1, "seconds of compile time");
static_assert(slow_sum(250007) != 1, "seconds of compile time");

extern "C" __global__ void gate_slow(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
