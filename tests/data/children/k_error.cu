// k_error.cu: a kernel that does not compile, in a file whose name holds "error" (issue 47,
// D11): the ERROR must quote the compiler's error line, not "k_error.cu: In function ...".
__global__ void broken(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] +;
}
