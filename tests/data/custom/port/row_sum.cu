// row_sum.cu: row sums, one block of 256 threads per row, written for the harness's op = custom
// tests as a CUDA original for HIP ports to be judged against (oracle =): a warp sums with
// shuffles over its 32 lanes, lane 0 of each warp keeps the warp's sum, thread 0 adds them.
// row_sum_oob is the same with a store one past y: an oracle that fails its own run.
__device__ float row_total(const float *x, int cols)
{
    __shared__ float part[32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (threadIdx.x % 32 == 0)
        part[threadIdx.x / 32] = s;
    __syncthreads();
    float t = 0.0f;
    for (int w = 0; threadIdx.x == 0 && w < (int)blockDim.x / 32; w++)
        t += part[w];
    return t;
}

__global__ void row_sum(const float *x, float *y, int rows, int cols)
{
    float t = row_total(x, cols);
    if (threadIdx.x == 0)
        y[blockIdx.x] = t;
}

__global__ void row_sum_oob(const float *x, float *y, int rows, int cols)
{
    float t = row_total(x, cols);
    if (threadIdx.x == 0)
        y[blockIdx.x] = t;
    if (threadIdx.x == 0 && blockIdx.x == 0)
        y[rows] = t;
}
