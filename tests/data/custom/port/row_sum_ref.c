/* row_sum_ref.c: the row sums' reference for the harness's op = custom tests, in double. */
void row_sum_ref(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int c = 0; c < cols; c++)
            s += x[(long)r * cols + c];
        y[r] = (float)s;
    }
}
