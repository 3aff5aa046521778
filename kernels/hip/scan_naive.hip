/* scan_naive: inclusive prefix sums within blocks of 4 * blockDim.x floats (1024 with the
 * manifest's 256 threads), the barrier form. Each thread scans 4 consecutive elements in
 * registers, a Hillis-Steele scan of the thread totals runs in double-buffered shared memory
 * with a barrier per step, and each element adds its thread's exclusive offset. y[i] is the
 * sum of x from its block's first element to i; partials[b] is block b's total. No warp
 * operation, so no width enters; any blockDim.x up to 256. */
#include <hip/hip_runtime.h>

#define SCAN_MAX_THREADS 256
#define SCAN_ITEMS 4

extern "C" __global__ void scan_naive(const float *x, float *y, float *partials, int n)
{
    __shared__ float sums[2][SCAN_MAX_THREADS];
    const int tid = threadIdx.x, threads = blockDim.x;
    const long first = (long)blockIdx.x * threads * SCAN_ITEMS + (long)tid * SCAN_ITEMS;
    float v[SCAN_ITEMS], run = 0.0f;
    for (int i = 0; i < SCAN_ITEMS; ++i) {
        run += first + i < n ? x[first + i] : 0.0f;
        v[i] = run;
    }
    int in = 0;
    sums[in][tid] = run;
    __syncthreads();
    for (int d = 1; d < threads; d <<= 1) {
        float s = sums[in][tid];
        if (tid >= d)
            s += sums[in][tid - d];
        sums[in ^ 1][tid] = s;
        in ^= 1;
        __syncthreads();
    }
    const float before = tid > 0 ? sums[in][tid - 1] : 0.0f;
    for (int i = 0; i < SCAN_ITEMS; ++i)
        if (first + i < n)
            y[first + i] = before + v[i];
    if (tid == threads - 1)
        partials[blockIdx.x] = sums[in][tid];
}
