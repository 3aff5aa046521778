/* SPDX-License-Identifier: MIT */
/* sums.h: fp32 summation orders that real kernels use, and planted bugs, for the bound tests
 * (test_bound.c). Each computes one output from its terms a[k] * b[k] (a row of A and a
 * column of B, or x and ones for a reduction). Header-only; no assertions, no references. */
#ifndef HB_SUMS_H
#define HB_SUMS_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Products are rounded unless fmaf says otherwise: the build is ISO C (-std=c11), where GCC
 * does not contract a * b + c. */
typedef float (*sum_fn)(const float *a, const float *b, long n, long arg);

static inline float s_seq(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float s = 0;
    for (long k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}

static inline float s_fma(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float s = 0;
    for (long k = 0; k < n; k++)
        s = fmaf(a[k], b[k], s);
    return s;
}

static inline float s_pairwise(const float *a, const float *b, long n, long arg)
{
    if (n <= 8)
        return s_seq(a, b, n, arg);
    long h = n / 2;
    return s_pairwise(a, b, h, arg) + s_pairwise(a + h, b + h, n - h, arg);
}

/* arg slices of K, each an fmaf chain, then the partials added in order (cuBLAS split-K). */
static inline float s_splitk(const float *a, const float *b, long n, long arg)
{
    long step = (n + arg - 1) / arg;
    float s = 0;
    for (long k = 0; k < n; k += step)
        s += s_fma(a + k, b + k, n - k < step ? n - k : step, 0);
    return s;
}

static inline float s_kahan(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float s = 0, c = 0;
    for (long k = 0; k < n; k++) {
        float y = a[k] * b[k] - c, t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}

/* A register-tiled kernel that sums each BK = 8 slice before adding it to its accumulator. */
static inline float s_tile8(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float s = 0;
    for (long k = 0; k < n; k += 8)
        s += s_fma(a + k, b + k, n - k < 8 ? n - k : 8, 0);
    return s;
}

static inline uint64_t s_mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Every product atomically added in a random order (arg seeds the shuffle). */
static inline float s_atomic(const float *a, const float *b, long n, long arg)
{
    float *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    uint64_t x = (uint64_t)arg * 7919u + (uint64_t)n;
    for (long k = 0; k < n; k++)
        p[k] = a[k] * b[k];
    for (long k = n - 1; k > 0; k--) {
        long j = (long)(s_mix(&x) % (uint64_t)(k + 1));
        float t = p[k];
        p[k] = p[j], p[j] = t;
    }
    float s = 0;
    for (long k = 0; k < n; k++)
        s += p[k];
    free(p);
    return s;
}

static inline float s_flush(float v) { return fabsf(v) < FLT_MIN ? 0.0f * v : v; }

/* A device that flushes subnormal inputs, products and sums to zero. */
static inline float s_ftz(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float s = 0;
    for (long k = 0; k < n; k++)
        s = s_flush(s + s_flush(s_flush(a[k]) * s_flush(b[k])));
    return s;
}

/* A 256-thread block: thread t sums elements t, t + 256, ... in turn, then a shared-memory
 * tree halves the 256 partials (reduce_generic and its kin). */
static inline float s_tree256(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float v[256] = {0};
    for (long k = 0; k < n; k++)
        v[k % 256] = fmaf(a[k], b[k], v[k % 256]);
    for (int h = 128; h; h /= 2)
        for (int t = 0; t < h; t++)
            v[t] += v[t + h];
    return v[0];
}

/* ---------- planted bugs ---------- */

/* v rounded to `bits` significant bits, ties to even (bf16, fp16) or away (TF32's cvt.rna). */
static inline float s_round_bits(float v, int bits, int ties_away)
{
    if (v == 0 || !isfinite(v))
        return v;
    int e;
    frexpf(v, &e);
    float m = ldexpf(v, bits - e);
    return ldexpf(ties_away ? roundf(m) : rintf(m), e - bits);
}

static inline float s_half(float v)
{
    if (fabsf(v) < 0x1p-14f) /* fp16 subnormals: multiples of 2^-24 */
        return ldexpf(rintf(ldexpf(v, 24)), -24);
    float r = s_round_bits(v, 11, 0);
    return fabsf(r) > 65504.0f ? copysignf(INFINITY, r) : r;
}

static inline float b_dropped(const float *a, const float *b, long n, long arg)
{
    return s_fma(a, b, n > 0 ? n - 1 : 0, arg);
}

static inline float b_doubled(const float *a, const float *b, long n, long arg)
{
    return n > 0 ? fmaf(a[0], b[0], s_fma(a, b, n, arg)) : 0;
}

/* 16-wide K tiles whose last, partial tile is not zero-filled: its slots past K still hold
 * the previous tile's values. */
static inline float b_stale(const float *a, const float *b, long n, long arg)
{
    float s = s_fma(a, b, n, arg);
    for (long k = n; n > 16 && k % 16; k++)
        s = fmaf(a[k - 16], b[k - 16], s);
    return s;
}

static inline float b_half_acc(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    float s = 0;
    for (long k = 0; k < n; k++)
        s = s_half(s + a[k] * b[k]);
    return s;
}

static inline float rounded_inputs(const float *a, const float *b, long n, int bits, int away)
{
    float s = 0;
    for (long k = 0; k < n; k++)
        s = fmaf(s_round_bits(a[k], bits, away), s_round_bits(b[k], bits, away), s);
    return s;
}

static inline float b_bf16(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    return rounded_inputs(a, b, n, 8, 0);
}

static inline float b_tf32(const float *a, const float *b, long n, long arg)
{
    (void)arg;
    return rounded_inputs(a, b, n, 11, 1);
}

#endif
