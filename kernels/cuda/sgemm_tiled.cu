/* sgemm_tiled: C = A * B (row-major, fp32) with 16 x 16 tiles of A and B staged in
 * shared memory between two barriers; one thread per element of C. Tiles past the
 * edge of A or B are zero-filled so any M, N, K >= 0 works. No register tiling. */
#include <cuda_runtime.h>

#define TS_T 16

extern "C" __global__ void sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS_T][TS_T];
    __shared__ float Bs[TS_T][TS_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS_T + ty;
    int col = blockIdx.x * TS_T + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TS_T) {
        /* Every thread stages one element of each tile, even threads whose own C
         * element is off the edge: the tile is shared by the whole block. */
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS_T; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
