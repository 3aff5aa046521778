// children.cu: kernels for issue 47's checks (tests/integration/trust.sh, "children with
// deadlines"). Each is y = x or reaches for the harness from the emulator's worker or an
// oracle's child: a stop signal to the harness must be refused, a hang must end at its timeout.
#include <signal.h>
#include <unistd.h>

__global__ void copy(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// SIGSTOP to the process that runs it (the harness), then a wrong answer: the run must go on
// to this kernel's FAIL.
__global__ void stops_harness(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        kill(getppid(), SIGSTOP);
    if (i < n)
        y[i] = x[i] + 1.0f;
}

// An oracle that stops the harness, then answers right.
__global__ void oracle_stops(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        kill(getppid(), SIGSTOP);
    if (i < n)
        y[i] = x[i];
}

// An oracle that closes every descriptor (its result pipe included) and spins.
__global__ void closes_spins(const float *x, float *y, int n)
{
    (void)x, (void)y, (void)n;
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        for (int fd = 0; fd < 1024; fd++)
            close(fd);
        for (volatile int s = 1; s;)
            ;
    }
}
