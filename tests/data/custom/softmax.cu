// softmax.cu: a row softmax, one block per row, written for the harness's op = custom tests:
// y[r][c] = exp(x[r][c] - max of row r) / (sum over the row of those exponentials).
// softmax_rows strides over a row of any length; its broken twin softmax_rows_one_pass gives each
// thread one column, as if no row were wider than the block: past 256 columns it leaves y
// unwritten and sums too little.
#define BLOCK 256

__device__ float block_max(float v, float *red)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int h = BLOCK / 2; h > 0; h /= 2) {
        if (threadIdx.x < h)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + h]);
        __syncthreads();
    }
    float m = red[0];
    __syncthreads();
    return m;
}

__device__ float block_sum(float v, float *red)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int h = BLOCK / 2; h > 0; h /= 2) {
        if (threadIdx.x < h)
            red[threadIdx.x] += red[threadIdx.x + h];
        __syncthreads();
    }
    float s = red[0];
    __syncthreads();
    return s;
}

__global__ void softmax_rows(const float *x, float *y, int rows, int cols)
{
    __shared__ float red[BLOCK];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    float m = -3.402823466e38f;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        m = fmaxf(m, xr[c]);
    m = block_max(m, red);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        s += expf(xr[c] - m);
    s = block_sum(s, red);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        yr[c] = expf(xr[c] - m) / s;
}

__global__ void softmax_rows_one_pass(const float *x, float *y, int rows, int cols)
{
    __shared__ float red[BLOCK];
    const float *xr = x + (size_t)blockIdx.x * cols;
    int c = threadIdx.x;
    float v = c < cols ? xr[c] : -3.402823466e38f;
    float m = block_max(v, red);
    float e = c < cols ? expf(v - m) : 0.0f;
    float s = block_sum(e, red);
    if (c < cols)
        y[(size_t)blockIdx.x * cols + c] = e / s;
}
