/* fork_sgemm: a correct naive SGEMM whose thread (0,0) of block (0,0) forks the worker
 * process. With HB_TEST_FORK=sleep the copy names itself hb_fork_kid and sleeps forever,
 * holding every descriptor of the worker; otherwise it returns and carries on as a second
 * worker would (sending rows of its own). Emulator only: it calls the host's fork(). */
#include <cuda_runtime.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static void fork_once(void)
{
    const char *how = getenv("HB_TEST_FORK");
    if (fork() != 0)
        return;
    prctl(PR_SET_NAME, "hb_fork_kid");
    if (how && !strcmp(how, "sleep"))
        for (;;)
            pause();
}

extern "C" __global__ void fork_sgemm(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
        fork_once();
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
