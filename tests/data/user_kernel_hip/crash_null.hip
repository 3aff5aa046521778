/* crash_null (HIP): known-bad SGEMM canary, kernels/cuda/fault_crash.cu in HIP: it stores
 * through a null pointer read back from a volatile shared slot, so no compiler can drop the
 * store. A GPU reports an illegal address (a dead context: api-error), the emulator dies on
 * SIGSEGV (crash); either way the run must contain it and go on. */
#include <hip/hip_runtime.h>

extern "C" __global__ void crash_null(const float *A, const float *B, float *C, int M, int N, int K)
{
    (void)A;
    (void)B;
    (void)C;
    (void)M;
    (void)N;
    (void)K;
    __shared__ volatile size_t null_addr[1];
    null_addr[0] = 0; /* every thread writes the same value: no race that matters */
    float *null_p = (float *)null_addr[0];
    null_p[threadIdx.x] = 1.0f;
}
