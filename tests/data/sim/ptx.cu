// ptx.cu: a user kernel with inline PTX, which the emulator does not model: its build fails
// with that feature named.
__global__ void ptx_lane(const float *A, const float *B, float *C, int M, int N, int K)
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    if (lane == 0 && M > 0 && N > 0 && K > 0)
        C[0] = A[0] * B[0];
}
