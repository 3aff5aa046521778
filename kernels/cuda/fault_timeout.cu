/* fault_timeout: known-bad SGEMM canary that never finishes: every thread spins on
 * a flag in C that nothing sets (C holds the core's poison). The reads are
 * volatile, so the compiler must keep the loop; the core's per-case timeout must
 * kill it and class the run "timeout". */
#include <cuda_runtime.h>

#define FT_NEVER 1234.5f /* no poison or guard pattern is this value */

extern "C" __global__ void fault_timeout(const float *__restrict__ A, const float *__restrict__ B,
                                         float *C, int M, int N, int K)
{
    (void)A;
    (void)B;
    (void)M;
    (void)N;
    (void)K;
    volatile float *flag = C;
    while (flag[0] != FT_NEVER) {
    }
}
