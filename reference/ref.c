/* SPDX-License-Identifier: MIT */
/* ref.c: OpenBLAS and float64 references (see ref.h), for C = A B and the BLAS form
 * alpha A B + beta C0. float64 is the truth: a product of two floats is exact in double and
 * K <= 2^31 terms lose at most K * 2^-53 relatively, far below float's 2^-24, so the
 * references' own error is negligible in every bound.
 * The per-output figures come from the same dgemm on transformed inputs (|.|, squares,
 * subnormal parts) and from per-row and per-column grids; no per-element loop over K. */
#include "ref.h"

#include <cblas.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The arrays a reference keeps, from where the caller wants them (ref_set_keep). */
static void *(*keep_calloc)(size_t, size_t) = ref_calloc;
static void (*keep_free)(void *) = free;

void ref_set_keep(void *(*alloc)(size_t n, size_t size), void (*release)(void *p))
{
    keep_calloc = alloc ? alloc : ref_calloc;
    keep_free = release ? release : free;
}

static int is_subnormal(float v) { return v != 0 && fabsf(v) < FLT_MIN; }

enum promotion { AS_IS, ABSOLUTE, SUBNORMAL_ABS };

static double *promote(const float *src, size_t n, enum promotion how)
{
    double *d = ref_calloc(n, sizeof *d);
    for (size_t i = 0; i < n; i++) {
        double v = src[i];
        if (how == SUBNORMAL_ABS && !is_subnormal(src[i]))
            v = 0;
        d[i] = how == AS_IS ? v : fabs(v);
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

/* Grids as exponents: v's grid is 2^grid_exp(v), the largest power of two dividing it.
 * GRID_NONE (zeros) adds no constraint; GRID_ZERO (subnormal or non-finite values) is grid 0,
 * which no flushing device keeps. Read from the bits: a normal float is (2^23 + m) 2^(E-150),
 * so its grid is 2^(E - 150 + ctz(2^23 + m)); no libm call per element. */
#define GRID_NONE INT_MAX
#define GRID_ZERO INT_MIN

static int grid_exp(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t e = (bits >> 23) & 0xff, m = bits & 0x7fffff;
    if (!e && !m)
        return GRID_NONE;
    if (!e || e == 0xff)
        return GRID_ZERO;
    return (int)e - 150 + __builtin_ctz(m | 0x800000u);
}

static int grid_min_exp(int q, float v)
{
    int g = grid_exp(v);
    return g < q ? g : q;
}

/* The grid itself: infinite when nothing constrained it, 0 for GRID_ZERO. */
static double grid_value(int q) { return q == GRID_NONE ? INFINITY : q == GRID_ZERO ? 0 : ldexp(1.0, q); }

/* Every order is exact when the terms are multiples of q >= FLT_MIN (no subnormal can
 * appear) and their absolute sum is at most 2^24 q (every partial sum is a float). */
static int exact_on_grid(double gauge, double q)
{
    return gauge == 0 || (q >= FLT_MIN && gauge <= 0x1p24 * q && gauge <= FLT_MAX);
}

/* C = A * B in float64, row-major, with OpenBLAS; K = 0 gives zeros. */
static void dgemm(double *C, const double *A, const double *B, long M, long N, long K)
{
    if (!M || !N)
        return;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N, (blasint)K, 1.0, A,
                (blasint)(K ? K : 1), B, (blasint)N, 0.0, C, (blasint)N);
}

/* Replaces each promoted value by its absolute value, then (again) by its square: the
 * gauge's and the spread's inputs from one copy, without promoting A and B three times. */
static void to_abs(double *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(d[i]);
}

static void to_square(double *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] *= d[i];
}

/* c64 = A B, gauge = |A| |B|, spread = A.^2 B.^2 (its root is taken once scaled), in float64. */
static void sgemm_products(struct ref_sgemm *r, const float *A, const float *B)
{
    long M = r->M, N = r->N, K = r->K;
    size_t mk = (size_t)M * K, kn = (size_t)K * N;
    double *a = promote(A, mk, AS_IS), *b = promote(B, kn, AS_IS);
    dgemm(r->c64, a, b, M, N, K);
    to_abs(a, mk), to_abs(b, kn);
    dgemm(r->gauge, a, b, M, N, K);
    to_square(a, mk), to_square(b, kn);
    dgemm(r->spread, a, b, M, N, K);
    free(a), free(b);
}

/* A device may flush subnormal inputs to zero (Vulkan allows it unless denormPreserve is
 * set): each flushed factor can drop |a||b| from the sum: |A_sub||B| + |A||B_sub|. */
static void sgemm_input_flush(struct ref_sgemm *r, const float *A, const float *B)
{
    long M = r->M, N = r->N, K = r->K;
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    if (!any_subnormal(A, mk) && !any_subnormal(B, kn))
        return;
    double *as = promote(A, mk, SUBNORMAL_ABS), *b = promote(B, kn, ABSOLUTE);
    double *a = promote(A, mk, ABSOLUTE), *bs = promote(B, kn, SUBNORMAL_ABS);
    double *part = ref_calloc(mn, sizeof *part);
    r->flush = keep_calloc(mn, sizeof *r->flush);
    dgemm(r->flush, as, b, M, N, K);
    dgemm(part, a, bs, M, N, K);
    for (size_t i = 0; i < mn; i++)
        r->flush[i] += part[i];
    free(as), free(b), free(a), free(bs), free(part);
}

/* 0 or +-2^e: multiplying by it is exact (short of overflow and underflow). */
static int zero_or_pow2(float v)
{
    int e;
    return v == 0 || (isfinite(v) && frexpf(fabsf(v), &e) == 0.5f);
}

/* C = alpha A B + beta C0 from the product's figures, before the spread's root: the terms are
 * alpha a_ik b_kj and beta c0_ij; flushing scales with alpha. */
static void sgemm_scale(struct ref_sgemm *r, const float *C0)
{
    double a = r->alpha, b = r->terms > r->K ? r->beta : 0;
    for (size_t i = 0; i < (size_t)r->M * r->N; i++) {
        double c = b != 0 ? b * C0[i] : 0;
        r->c64[i] = a * r->c64[i] + c;
        r->gauge[i] = fabs(a) * r->gauge[i] + fabs(c);
        r->spread[i] = a * a * r->spread[i] + c * c;
        if (r->flush)
            r->flush[i] *= fabs(a);
    }
}

/* Grids per row of A and column of B bound the grid of every product a_ik b_kj (times alpha);
 * beta c0_ij adds its own. Off the FLT_MIN grid, each of the K products and K additions may be
 * subnormal and lose < FLT_MIN (scaled: three more operations, times alpha where it is large). */
static void sgemm_grids(struct ref_sgemm *r, const float *A, const float *B, const float *C0)
{
    long M = r->M, N = r->N, K = r->K;
    double a = fabs(r->alpha);
    int scaled = r->alpha != 1 || r->terms > K, scalable = zero_or_pow2(r->alpha) && zero_or_pow2(r->beta);
    double underflow = (2.0 * (double)K + (scaled ? 3 : 0)) * FLT_MIN * (a > 1 ? a : 1);
    double *qa = ref_calloc((size_t)M + 1, sizeof *qa), *qb = ref_calloc((size_t)N + 1, sizeof *qb);
    int *eb = ref_calloc((size_t)N + 1, sizeof *eb);
    for (long i = 0; i < M; i++) {
        int e = GRID_NONE;
        for (long k = 0; k < K; k++)
            e = grid_min_exp(e, A[i * K + k]);
        qa[i] = grid_value(e);
    }
    for (long j = 0; j < N; j++)
        eb[j] = GRID_NONE;
    for (long k = 0; k < K; k++)
        for (long j = 0; j < N; j++)
            eb[j] = grid_min_exp(eb[j], B[k * N + j]);
    for (long j = 0; j < N; j++)
        qb[j] = grid_value(eb[j]);
    free(eb);
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            size_t at = (size_t)i * N + j;
            /* NaN (inf * 0) only where a zero row meets a bad column; alpha 0 adds no term */
            double q = a == 0 ? INFINITY : qa[i] * qb[j] * a;
            double qc = r->terms > K ? grid_value(grid_exp((float)(r->beta * (double)C0[at]))) : INFINITY;
            if (qc < q) /* not fmin: a NaN q must stay NaN */
                q = qc;
            r->exact[at] = (unsigned char)(scalable && exact_on_grid(r->gauge[at], q));
            if (r->gauge[at] == 0 || q >= FLT_MIN)
                continue;
            if (!r->flush)
                r->flush = keep_calloc((size_t)M * N, sizeof *r->flush);
            r->flush[at] += underflow;
        }
    free(qa), free(qb);
}

void ref_sgemm_compute(struct ref_sgemm *r, const float *A, const float *B, long M, long N, long K)
{
    ref_sgemm_compute_scaled(r, A, B, NULL, 1.0f, 0.0f, M, N, K);
}

void ref_sgemm_compute_scaled(struct ref_sgemm *r, const float *A, const float *B, const float *C0, float alpha,
                              float beta, long M, long N, long K)
{
    size_t mn = (size_t)M * N;
    memset(r, 0, sizeof *r);
    r->M = M, r->N = N, r->K = K;
    r->alpha = alpha, r->beta = beta;
    int with_c = C0 && beta != 0;
    r->terms = K + with_c;
    r->c32 = keep_calloc(mn, sizeof *r->c32);
    r->c64 = keep_calloc(mn, sizeof *r->c64);
    r->gauge = keep_calloc(mn, sizeof *r->gauge);
    r->spread = keep_calloc(mn, sizeof *r->spread);
    r->exact = keep_calloc(mn + 1, sizeof *r->exact);
    if (with_c && mn)
        memcpy(r->c32, C0, mn * sizeof *r->c32);
    if (M && N)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N, (blasint)K, alpha, A,
                    (blasint)(K ? K : 1), B, (blasint)N, with_c ? beta : 0.0f, r->c32, (blasint)N);
    sgemm_products(r, A, B);
    sgemm_input_flush(r, A, B);
    if (alpha != 1 || with_c)
        sgemm_scale(r, C0);
    for (size_t i = 0; i < mn; i++)
        r->spread[i] = sqrt(r->spread[i]);
    sgemm_grids(r, A, B, C0);
}

void ref_sgemm_free(struct ref_sgemm *r)
{
    keep_free(r->c32), keep_free(r->c64), keep_free(r->gauge), keep_free(r->spread), keep_free(r->flush),
        keep_free(r->exact);
    memset(r, 0, sizeof *r);
}

/* One block's figures; returns what flushing may lose there. */
static double reduce_block(struct ref_reduce *r, long b, const float *x, long len)
{
    double p = 0, g = 0, sq = 0, sub = 0;
    int qe = GRID_NONE;
    for (long i = 0; i < len; i++) {
        double v = x[i];
        p += v, g += fabs(v), sq += v * v;
        if (is_subnormal(x[i]))
            sub += fabs(v);
        qe = grid_min_exp(qe, x[i]);
    }
    double q = grid_value(qe);
    r->partial64[b] = p;
    r->gauge[b] = g;
    r->spread[b] = sqrt(sq);
    r->exact[b] = (unsigned char)exact_on_grid(g, q);
    return sub + (g != 0 && !(q >= FLT_MIN) ? (double)len * FLT_MIN : 0);
}

void ref_reduce_compute(struct ref_reduce *r, const float *x, long n, long chunk)
{
    memset(r, 0, sizeof *r);
    r->n = n, r->chunk = chunk;
    r->blocks = (n + chunk - 1) / chunk;
    size_t nb = (size_t)r->blocks;
    r->partial64 = keep_calloc(nb, sizeof *r->partial64);
    r->gauge = keep_calloc(nb, sizeof *r->gauge);
    r->spread = keep_calloc(nb, sizeof *r->spread);
    r->exact = keep_calloc(nb + 1, sizeof *r->exact);
    double sum = 0, comp = 0; /* Neumaier's compensated sum for the total */
    for (long b = 0; b < r->blocks; b++) {
        long start = b * chunk, end = start + chunk < n ? start + chunk : n;
        double f = reduce_block(r, b, x + start, end - start);
        if (f > 0 && !r->flush)
            r->flush = keep_calloc(nb, sizeof *r->flush);
        if (f > 0)
            r->flush[b] = f;
        r->total_abs += r->gauge[b];
        for (long i = start; i < end; i++) {
            double v = x[i], t = sum + v;
            comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
            sum = t;
        }
    }
    r->total64 = sum + comp;
}

/* Neumaier's compensated sum: the float64 truth of a double sum to about one rounding. */
static double neumaier(const double *x, long len, double *gauge, double *squares)
{
    double sum = 0, comp = 0, g = 0, sq = 0;
    for (long i = 0; i < len; i++) {
        double v = x[i], t = sum + v;
        comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
        sum = t, g += fabs(v), sq += v * v;
    }
    *gauge = g, *squares = sq;
    return sum + comp;
}

void ref_reduce_compute_f64(struct ref_reduce *r, const double *x, long n, long chunk)
{
    memset(r, 0, sizeof *r);
    r->n = n, r->chunk = chunk;
    r->blocks = (n + chunk - 1) / chunk;
    size_t nb = (size_t)r->blocks;
    r->partial64 = keep_calloc(nb, sizeof *r->partial64);
    r->gauge = keep_calloc(nb, sizeof *r->gauge);
    r->spread = keep_calloc(nb, sizeof *r->spread);
    r->exact = keep_calloc(nb + 1, sizeof *r->exact); /* no grid claim: only exact data are exact */
    for (long b = 0; b < r->blocks; b++) {
        long start = b * chunk, end = start + chunk < n ? start + chunk : n;
        double sq;
        r->partial64[b] = neumaier(x + start, end - start, &r->gauge[b], &sq);
        r->spread[b] = sqrt(sq);
        r->total_abs += r->gauge[b];
    }
    double g, sq;
    r->total64 = neumaier(x, n, &g, &sq);
}

void ref_reduce_free(struct ref_reduce *r)
{
    keep_free(r->partial64), keep_free(r->gauge), keep_free(r->spread), keep_free(r->flush), keep_free(r->exact);
    memset(r, 0, sizeof *r);
}

const char *ref_library(void) { return openblas_get_config(); }

const char *ref_core_for(const char *chosen, const char *corename, int avx512, int avx2_fma)
{
    if ((chosen && *chosen) || !corename || strcmp(corename, "Prescott"))
        return NULL;
    return avx512 ? "SkylakeX" : avx2_fma ? "Haswell" : NULL;
}

const char *ref_better_core(void)
{
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    int avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return ref_core_for(getenv("OPENBLAS_CORETYPE"), openblas_get_corename(), avx512, avx2_fma);
}

int ref_blas_threads_for(int callers, int current) { return callers > 1 && current > 4 ? 4 : current; }

int ref_blas_threads(void) { return openblas_get_num_threads(); }

void ref_set_blas_threads(int n) { openblas_set_num_threads(n); }
