/* softmax_ref.c: the row softmax's reference (op = custom: the softmax family and
 * canary_softmax32), in double: each row's maximum (NaNs skipped, as fmaxf skips them), the
 * sum of exp(x - max), then every element rounded once to float. */
#include <math.h>

void softmax_ref(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * cols;
        double m = -INFINITY, s = 0;
        for (int c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (int c = 0; c < cols; c++)
            s += exp(xr[c] - m);
        for (int c = 0; c < cols; c++)
            y[(long)r * cols + c] = (float)(exp(xr[c] - m) / s);
    }
}
