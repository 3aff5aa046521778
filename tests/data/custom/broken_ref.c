/* broken_ref.c: a reference that does not compile, for the harness's op = custom tests. */
void broken_ref(const float *x, float *y, int n)
{
    y[0] = x[0] + not_declared;
}
