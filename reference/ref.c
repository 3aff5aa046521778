/* ref.c: OpenBLAS and float64 references (see ref.h). float64 is the truth: a product of
 * two floats is exact in double and K <= 2^31 terms lose at most K * 2^-53 relatively,
 * far below float's 2^-24, so the references' own error is negligible in every bound. */
#include "ref.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* References are all or nothing: without memory for them no verdict can be given. */
static void *ref_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "harness: out of memory for references\n");
        exit(2);
    }
    return p;
}

static int is_subnormal(float v) { return v != 0 && fabsf(v) < FLT_MIN; }

static double *promote(const float *src, size_t n, int absolute, int subnormal_only)
{
    double *d = ref_calloc(n, sizeof *d);
    for (size_t i = 0; i < n; i++) {
        double v = src[i];
        if (subnormal_only && !is_subnormal(src[i]))
            v = 0;
        d[i] = absolute ? fabs(v) : v;
    }
    return d;
}

static int any_subnormal(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (is_subnormal(v[i]))
            return 1;
    return 0;
}

/* C = A * B in float64, row-major, with OpenBLAS; K = 0 gives zeros. */
static void dgemm(double *C, const double *A, const double *B, long M, long N, long K)
{
    if (!M || !N)
        return;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N, (blasint)K, 1.0, A,
                (blasint)(K ? K : 1), B, (blasint)N, 0.0, C, (blasint)N);
}

void ref_sgemm_compute(struct ref_sgemm *r, const float *A, const float *B, long M, long N, long K)
{
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    memset(r, 0, sizeof *r);
    r->M = M, r->N = N, r->K = K;
    r->c32 = ref_calloc(mn, sizeof *r->c32);
    r->c64 = ref_calloc(mn, sizeof *r->c64);
    r->gauge = ref_calloc(mn, sizeof *r->gauge);
    if (M && N)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N, (blasint)K, 1.0f, A,
                    (blasint)(K ? K : 1), B, (blasint)N, 0.0f, r->c32, (blasint)N);
    double *a = promote(A, mk, 0, 0), *b = promote(B, kn, 0, 0);
    dgemm(r->c64, a, b, M, N, K);
    free(a), free(b);
    a = promote(A, mk, 1, 0), b = promote(B, kn, 1, 0);
    dgemm(r->gauge, a, b, M, N, K);
    if (any_subnormal(A, mk) || any_subnormal(B, kn)) {
        /* A device may flush subnormal inputs to zero (Vulkan allows it unless
         * denormPreserve is set): each flushed factor can drop |a||b| from the sum.
         * flush = |A_sub||B| + |A||B_sub| bounds that. */
        r->flush = ref_calloc(mn, sizeof *r->flush);
        double *as = promote(A, mk, 1, 1), *bs = promote(B, kn, 1, 1);
        double *part = ref_calloc(mn, sizeof *part);
        dgemm(r->flush, as, b, M, N, K);
        dgemm(part, a, bs, M, N, K);
        for (size_t i = 0; i < mn; i++)
            r->flush[i] += part[i];
        free(as), free(bs), free(part);
    }
    free(a), free(b);
}

void ref_sgemm_free(struct ref_sgemm *r)
{
    free(r->c32), free(r->c64), free(r->gauge), free(r->flush);
    memset(r, 0, sizeof *r);
}

void ref_reduce_compute(struct ref_reduce *r, const float *x, long n, long chunk)
{
    memset(r, 0, sizeof *r);
    r->n = n, r->chunk = chunk;
    r->blocks = (n + chunk - 1) / chunk;
    r->partial64 = ref_calloc((size_t)r->blocks, sizeof *r->partial64);
    r->gauge = ref_calloc((size_t)r->blocks, sizeof *r->gauge);
    int subnormals = any_subnormal(x, (size_t)n);
    if (subnormals)
        r->flush = ref_calloc((size_t)r->blocks, sizeof *r->flush);
    double sum = 0, comp = 0; /* Neumaier's compensated sum for the total */
    for (long b = 0; b < r->blocks; b++) {
        long end = (b + 1) * chunk < n ? (b + 1) * chunk : n;
        double p = 0, g = 0, f = 0;
        for (long i = b * chunk; i < end; i++) {
            double v = x[i];
            p += v;
            g += fabs(v);
            if (subnormals && is_subnormal(x[i]))
                f += fabs(v);
            double t = sum + v;
            comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
            sum = t;
        }
        r->partial64[b] = p;
        r->gauge[b] = g;
        if (r->flush)
            r->flush[b] = f;
        r->total_abs += g;
    }
    r->total64 = sum + comp;
}

void ref_reduce_free(struct ref_reduce *r)
{
    free(r->partial64), free(r->gauge), free(r->flush);
    memset(r, 0, sizeof *r);
}

const char *ref_library(void)
{
    return openblas_get_config();
}
