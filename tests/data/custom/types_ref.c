/* types_ref.c: the references of types.cu for the harness's op = custom tests. f16 and bf16
 * buffers reach a reference as floats; the harness rounds its float outputs to the type. */
#include <stdint.h>

#define AFFINE(name, T, a, b)                                                                                          \
    void name(const T *x, T *y, int n)                                                                                 \
    {                                                                                                                  \
        for (int i = 0; i < n; i++)                                                                                    \
            y[i] = (T)(x[i] * (T)a + (T)b);                                                                            \
    }

AFFINE(affine_f32, float, 2, -1)
AFFINE(affine_f64, double, 2, -1)
AFFINE(affine_half, float, 2, -1) /* f16 and bf16 alike: floats in, floats out */
AFFINE(affine_i32, int32_t, 3, 1)
AFFINE(affine_u32, uint32_t, 3, 1)
AFFINE(affine_i64, int64_t, 3, 1)
AFFINE(affine_u64, uint64_t, 3, 1)
AFFINE(affine_u8, uint8_t, 3, 1)
