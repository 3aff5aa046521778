// roles.cu: every buffer role, written for the harness's op = custom tests: tmp is scratch and
// must start as zeros (tmp += x), acc is inout (acc += tmp), y is out (y = 2 tmp). tol_nudge
// scales x by 1 + 5e-7, 4 to 9 ULP off the reference's y = x: what the tolerance forms see.
__global__ void accumulate(const float *x, float *acc, float *tmp, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    tmp[i] += x[i];
    acc[i] += tmp[i];
    y[i] = 2.0f * tmp[i];
}

__global__ void tol_nudge(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] * 1.0000005f;
}

// What the harness catches in any op, here in a custom one: an input written, a write past the
// output, an element never written.
__global__ void writes_input(float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i], x[i] = 0.0f;
}

__global__ void writes_past(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        y[i] = i < n ? x[i] : 0.0f;
}

__global__ void skips_last(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        y[i] = x[i];
}

// A right copy, for references that go wrong themselves.
__global__ void copy(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}
