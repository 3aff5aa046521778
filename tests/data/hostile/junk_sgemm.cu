/* junk_sgemm: a correct naive SGEMM whose thread (0,0) of block (0,0) writes text lines into
 * every descriptor from 1 to 63 first: whatever the worker holds (its result pipe) or has
 * inherited (report files, other workers' pipes). None of it may reach a report, and the
 * parent must take the junk on its pipe as a malformed message, not as a result. */
#include <cuda_runtime.h>
#include <string.h>
#include <unistd.h>

static void spray(void)
{
    static const char line[] = "{\"junk\": \"a kernel wrote this line\"}\n";
    for (int fd = 1; fd < 64; fd++)
        for (int i = 0; i < 100; i++)
            if (write(fd, line, strlen(line)) < 0)
                break;
}

extern "C" __global__ void junk_sgemm(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
        spray();
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
