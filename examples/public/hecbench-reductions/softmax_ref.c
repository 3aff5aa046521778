// SPDX-License-Identifier: MIT
// softmax_ref.c: our reference for HeCBench's softMax kernels (softmax.manifest): each row of
// src (rows x cols, row-major) shifted by its max, exponentiated and normalized, in float64.
#include <math.h>

void softmax_rows(int rows, int cols, const float *src, float *dest)
{
    for (int r = 0; r < rows; r++) {
        const float *x = src + (long)r * cols;
        double top = x[0], sum = 0;
        for (int c = 1; c < cols; c++)
            top = x[c] > top ? x[c] : top;
        for (int c = 0; c < cols; c++)
            sum += exp((double)x[c] - top);
        for (int c = 0; c < cols; c++)
            dest[(long)r * cols + c] = (float)(exp((double)x[c] - top) / sum);
    }
}
