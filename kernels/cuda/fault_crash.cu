/* fault_crash: known-bad SGEMM canary that stores through a null pointer. The
 * address is read back from a volatile shared slot, so no compiler (nvcc, or g++
 * for the emulator) can prove it null and drop the store or warn: a real store to
 * address 0 is emitted, an illegal-address error on a GPU (a sticky error) and
 * SIGSEGV on the host. The run must be classed "crash". */
#include <cuda_runtime.h>

extern "C" __global__ void fault_crash(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
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
