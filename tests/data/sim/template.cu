// template.cu: a register-blocked SGEMM in the shape of a popular public tutorial kernel:
// template parameters for the tiles and the BLAS argument order (M, N, K, alpha, A, B,
// beta, C), C = alpha*A*B + beta*C, row-major. Bounds-checked: correct for any M, N, K.
template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN), 1)
    sgemm2DBlocktiling(int M, int N, int K, float alpha, const float *A, const float *B,
                       float beta, float *C)
{
    const int threads = (BM * BN) / (TM * TN);
    __shared__ float As[BK * BM]; // transposed: As[k * BM + m]
    __shared__ float Bs[BK * BN];
    const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
    float acc[TM * TN] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += threads) {
            int m = i / BK, k = i % BK, gm = blockIdx.y * BM + m, gk = k0 + k;
            As[k * BM + m] = gm < M && gk < K ? A[(size_t)gm * K + gk] : 0.0f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += threads) {
            int k = i / BN, n = i % BN, gk = k0 + k, gn = blockIdx.x * BN + n;
            Bs[k * BN + n] = gk < K && gn < N ? B[(size_t)gk * N + gn] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i * TN + j] += As[k * BM + tRow * TM + i] * Bs[k * BN + tCol * TN + j];
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
            int gm = blockIdx.y * BM + tRow * TM + i, gn = blockIdx.x * BN + tCol * TN + j;
            if (gm < M && gn < N)
                C[(size_t)gm * N + gn] = alpha * acc[i * TN + j] + beta * C[(size_t)gm * N + gn];
        }
}
