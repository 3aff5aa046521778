// stall.cu: kernels of our own for the emulator (tests/integration/trust.sh, issue 47): a plain
// sum, and the same sum whose first thread, when $HB_TEST_STALL_FILE is set, writes the pid of
// its worker's parent (the harness, or a --devices all shard) to that file and sleeps, so the
// test script kills or interrupts the harness mid-run at a moment it knows. Without the
// variable both are right sums.
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

__device__ void block_sum(const float *x, float *partials, int n)
{
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < 1024 && (long)blockIdx.x * 1024 + i < n; ++i)
            s += x[(long)blockIdx.x * 1024 + i];
        partials[blockIdx.x] = s;
    }
}

extern "C" __global__ void plain_sum(const float *x, float *partials, int n) { block_sum(x, partials, n); }

extern "C" __global__ void stall_sum(const float *x, float *partials, int n)
{
    const char *marker = getenv("HB_TEST_STALL_FILE");
    if (marker && blockIdx.x == 0 && threadIdx.x == 0) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", marker);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dprintf(fd, "%d\n", (int)getppid());
            close(fd);
            rename(tmp, marker); // whole when it appears
        }
        sleep(60);
    }
    block_sum(x, partials, n);
}
