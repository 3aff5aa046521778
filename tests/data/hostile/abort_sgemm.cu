/* abort_sgemm: a kernel that dies the way a heap-smashing one does: thread (0,0) of block
 * (0,0) prints glibc's heap-corruption message on stderr and aborts. The message must land
 * in the crashed case's row, not loose on the terminal. (Printed rather than provoked, so
 * the test does not depend on where malloc happens to put chunks; written with write(2) because
 * reading libc's `stderr` from kernel code is an access the emulator rightly stops as outside
 * every buffer, before the abort.) */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <unistd.h>

extern "C" __global__ void abort_sgemm(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
{
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
        static const char message[] = "malloc(): corrupted top size\n";
        (void)!write(2, message, sizeof message - 1);
        abort();
    }
}
