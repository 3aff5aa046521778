/* roles_ref.c: references of roles.cu for the harness's op = custom tests, and references that
 * go wrong themselves: each is the harness's ERROR, naming the reference, never the kernel's FAIL. */
#include <stdlib.h>

void accumulate_ref(const float *x, float *acc, float *tmp, float *y, int n)
{
    for (int i = 0; i < n; i++) {
        tmp[i] += x[i];
        acc[i] += tmp[i];
        y[i] = 2.0f * tmp[i];
    }
}

void copy_ref(const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

void reads_past_ref(const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] + x[i + 1] * 0.0f; /* x[n] is past the end */
}

void writes_input_ref(float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i], x[i] = 0.0f;
}

void null_ref(const float *x, float *y, int n)
{
    float *volatile nowhere = 0;
    for (int i = 0; i < n; i++)
        y[i] = x[i] + *nowhere;
}

void aborts_ref(const float *x, float *y, int n)
{
    (void)x, (void)y, (void)n;
    abort();
}

void hangs_ref(const float *x, float *y, int n)
{
    for (volatile int spin = 1; spin;)
        (void)x, (void)y, (void)n;
}

void skips_ref(const float *x, float *y, int n)
{
    for (int i = 0; i + 1 < n; i++)
        y[i] = x[i];
}
