// vec_shared.cu: a template SGEMM that stages its tiles through float4 stores into static
// __shared__ arrays, a template's and an inline function's, as vectorized tutorial kernels do
// (op ABI A, B, C, M, N, K). Each thread of a TILE/4 x TILE block stages 4 consecutive elements
// of a row of each tile and computes 4 of C. Bounds-checked element by element: any M, N, K.
template <int TILE>
__device__ inline float *b_tile()
{
    __shared__ __align__(16) float tile[TILE * TILE];
    return tile;
}

template <int TILE>
__global__ void vec_shared_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) float As[TILE * TILE];
    float *Bs = b_tile<TILE>();
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx * 4;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TILE) {
        float a[4], b[4];
        for (int i = 0; i < 4; ++i) {
            int ka = k0 + tx * 4 + i, kb = k0 + ty;
            a[i] = row < M && ka < K ? A[(size_t)row * K + ka] : 0.0f;
            b[i] = kb < K && col + i < N ? B[(size_t)kb * N + col + i] : 0.0f;
        }
        reinterpret_cast<float4 *>(&As[ty * TILE + tx * 4])[0] = make_float4(a[0], a[1], a[2], a[3]);
        reinterpret_cast<float4 *>(&Bs[ty * TILE + tx * 4])[0] = make_float4(b[0], b[1], b[2], b[3]);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float4 bv = reinterpret_cast<const float4 *>(&Bs[k * TILE + tx * 4])[0];
            float av = As[ty * TILE + k];
            acc[0] += av * bv.x;
            acc[1] += av * bv.y;
            acc[2] += av * bv.z;
            acc[3] += av * bv.w;
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        if (row < M && col + i < N)
            C[(size_t)row * N + col + i] = acc[i];
}
