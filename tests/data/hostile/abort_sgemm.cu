/* abort_sgemm: a kernel that dies the way a heap-smashing one does: thread (0,0) of block
 * (0,0) prints glibc's heap-corruption message on stderr and aborts. The message must land
 * in the crashed case's row, not loose on the terminal. (Printed rather than provoked, so
 * the test does not depend on where malloc happens to put chunks.) */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" __global__ void abort_sgemm(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
{
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
        fputs("malloc(): corrupted top size\n", stderr);
        abort();
    }
}
