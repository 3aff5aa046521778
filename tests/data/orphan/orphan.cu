// orphan.cu: a hostile kernel for the emulator (our own): its first thread forks a process
// that leaves the worker's process group (setsid) and would sleep a minute, writing its pid
// to $HB_TEST_ORPHAN_FILE. The harness must end it when it exits. A plain sum otherwise.
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

extern "C" __global__ void orphan_sum(const float *x, float *partials, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0 && getenv("HB_TEST_ORPHAN_FILE")) {
        pid_t pid = fork();
        if (pid == 0) {
            setsid();
            int fd = open(getenv("HB_TEST_ORPHAN_FILE"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0)
                dprintf(fd, "%d\n", (int)getpid()), close(fd); // no stdio: the fork's only thread
            sleep(60);
            _exit(0);
        }
    }
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < 1024 && (long)blockIdx.x * 1024 + i < n; ++i)
            s += x[(long)blockIdx.x * 1024 + i];
        partials[blockIdx.x] = s;
    }
}
