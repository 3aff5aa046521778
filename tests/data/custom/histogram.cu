// histogram.cu: an integer histogram with atomics, written for the harness's op = custom tests:
// h[b] counts the elements of x equal to b (every x in 0..bins-1, bins <= 1024), h zeroed before
// the launch. Each block counts into shared memory, then adds its counts into h. Its broken twin
// has no barrier before that merge: a thread adds a bin's count before the block's other
// threads have finished counting into it.
#define MAX_BINS 1024

__device__ void hist_block(const int *x, unsigned *h, int n, int bins, int merge_barrier)
{
    __shared__ unsigned s[MAX_BINS];
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        s[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s[x[i]], 1u);
    if (merge_barrier)
        __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        atomicAdd(&h[b], s[b]);
}

__global__ void hist_shared(const int *x, unsigned *h, int n, int bins) { hist_block(x, h, n, bins, 1); }

__global__ void hist_no_merge_barrier(const int *x, unsigned *h, int n, int bins) { hist_block(x, h, n, bins, 0); }
