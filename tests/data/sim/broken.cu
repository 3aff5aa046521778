// broken.cu: a user kernel that does not compile (an undeclared name): an ERROR, never a SKIP.
__global__ void broken(const float *A, const float *B, float *C, int M, int N, int K)
{
    C[0] = not_declared + A[0] * B[0] * M * N * K;
}
