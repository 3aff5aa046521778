/* layernorm_ref.c: the layer norm's reference for the harness's op = custom tests, in double:
 * mean, mean squared deviation, rstd = 1 / sqrt(var + eps), and y, each rounded once to float. */
#include <math.h>

void layernorm_ref(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                   int rows, int cols, float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * cols;
        double mu = 0, q = 0;
        for (int c = 0; c < cols; c++)
            mu += xr[c];
        mu /= cols;
        for (int c = 0; c < cols; c++)
            q += (xr[c] - mu) * (xr[c] - mu);
        double rs = 1 / sqrt(q / cols + eps);
        for (int c = 0; c < cols; c++)
            y[(long)r * cols + c] = (float)((xr[c] - mu) * rs * gamma[c] + beta[c]);
        mean[r] = (float)mu, rstd[r] = (float)rs;
    }
}
