// types.cu: one element-wise kernel per buffer type, written for the harness's op = custom
// tests. Floats compute y = 2x - 1 (2x is exact, so one rounding, fused or not) and integers
// y = 3x + 1 in their own type (u8 and u32 wrap, i64 and u64 need all 64 bits). f16 goes through
// __half, bf16 through its bits (the upper half of a float's), rounded to nearest even.
#include <cuda_fp16.h>

template <typename T>
__global__ void affine(const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (T)(x[i] * (T)2 - (T)1);
}

template <typename T>
__global__ void affine_int(const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (T)(x[i] * (T)3 + (T)1);
}

__global__ void affine_f16(const __half *x, __half *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __float2half(__half2float(x[i]) * 2.0f - 1.0f);
}

__global__ void affine_bf16(const unsigned short *x, unsigned short *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float f = __uint_as_float((unsigned)x[i] << 16) * 2.0f - 1.0f;
    unsigned u = __float_as_uint(f);
    y[i] = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
