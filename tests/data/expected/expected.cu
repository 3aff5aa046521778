// expected.cu: kernels for the harness's tests of expected values (issue 47): copies that are
// right, copies that skip an element, and kernels that write nothing, in several types.
__global__ void copy_u8(const unsigned char *x, unsigned char *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// Skips exactly the elements whose right value is 165 (0xa5, u8's poison).
__global__ void copy_u8_skip165(const unsigned char *x, unsigned char *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] != 165)
        y[i] = x[i];
}

__global__ void copy_f32(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

__global__ void copy_f32_skip_last(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        y[i] = x[i];
}

__global__ void nothing_f32(const float *x, float *y, int n) { (void)x, (void)y, (void)n; }
__global__ void nothing_i32(const int *x, int *y, int n) { (void)x, (void)y, (void)n; }
__global__ void nothing_u32(const unsigned *x, unsigned *y, int n) { (void)x, (void)y, (void)n; }
__global__ void nothing_u8(const unsigned char *x, unsigned char *y, int n) { (void)x, (void)y, (void)n; }
__global__ void nothing_i64(const long long *x, long long *y, int n) { (void)x, (void)y, (void)n; }
