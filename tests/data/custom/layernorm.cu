// layernorm.cu: a layer norm over rows, one block per row, written for the harness's op = custom
// tests: y = (x - mean) * rstd * gamma + beta with rstd = 1 / sqrt(var + eps), var the mean of
// the squared deviations; each row's mean and rstd are outputs too. Its broken twin divides the
// squared deviations by cols - 1 (the sample variance): off by about 1 / (2 cols).
#define BLOCK 256

__device__ float row_sum(float v, float *red)
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

__device__ void norm_row(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                         float *rstd, int cols, float eps, int divisor)
{
    __shared__ float red[BLOCK];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        s += xr[c];
    float mu = row_sum(s, red) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        q += (xr[c] - mu) * (xr[c] - mu);
    float r = 1.0f / sqrtf(row_sum(q, red) / divisor + eps);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        y[(size_t)blockIdx.x * cols + c] = (xr[c] - mu) * r * gamma[c] + beta[c];
    if (threadIdx.x == 0)
        mean[blockIdx.x] = mu, rstd[blockIdx.x] = r;
}

__global__ void layernorm_rows(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                               float *rstd, int rows, int cols, float eps)
{
    norm_row(x, gamma, beta, y, mean, rstd, cols, eps, cols);
}

__global__ void layernorm_rows_sample_var(const float *x, const float *gamma, const float *beta, float *y,
                                          float *mean, float *rstd, int rows, int cols, float eps)
{
    norm_row(x, gamma, beta, y, mean, rstd, cols, eps, cols - 1);
}
