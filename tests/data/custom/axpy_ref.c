/* axpy_ref.c: y = alpha x + y, the reference of axpy.comp for the harness's op = custom tests. */
void axpy_ref(int n, float alpha, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = alpha * x[i] + y[i];
}
