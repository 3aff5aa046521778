/* SPDX-License-Identifier: MIT */
/* gen.c: deterministic input generation (splitmix64 per case seed and stream). The value
 * families are the ones the brief asks for: exact (small multiples of 1/2, every order
 * sums exactly), uniform [-1, 1), cancellation-heavy (random signs, magnitudes 2^-20..2^20),
 * special (uniform plus NaN, +-Inf, -0.0 and subnormals at seeded places), and wideint (exact
 * too, with one factor too wide for TF32 or bf16). Not a sampler of real workloads. */
#include "gen.h"

#include <float.h>
#include <math.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* [0, 1) with 24 random bits: every value is a float. */
static float unit(uint64_t *s) { return (float)(splitmix64(s) >> 40) * 0x1p-24f; }

/* The largest wideint value of A: odd integers of 12 bits end at 2^12 - 1. */
#define WIDEINT_TOP 4095L

int gen_exact_amplitude(long len, int factors)
{
    /* Sums are exact while their magnitude, in units of the finest step, stays below
     * 2^24: for sgemm (two factors of j/2) that is len * J^2 * ... quarter units; for a
     * plain sum len * J half units. J = 8 is the most we use. */
    long budget = (1L << 24) - 1;
    for (int j = 8; j > 1; j--) {
        long worst = factors == 2 ? len * (long)j * j : len * (long)j;
        if (worst <= budget)
            return j;
    }
    return 1;
}

int gen_wideint_amplitude(long len, long *stride)
{
    /* In half units a term is at most 4095 * amplitude, and 4097 terms of 4095 fill the
     * budget exactly: 4097 * 4095 = 2^24 - 1. */
    long budget = (1L << 24) - 1, step = (len + GEN_WIDEINT_MAX - 1) / GEN_WIDEINT_MAX;
    step = step < 1 ? 1 : step;
    long used = (len + step - 1) / step;
    long amp = used > 0 ? budget / (used * WIDEINT_TOP) : 8;
    *stride = step;
    return amp > 8 ? 8 : amp < 1 ? 1 : (int)amp;
}

/* An odd integer of exactly `bits` significant bits (1..24), random sign. */
static float wideint_odd(uint64_t *s, int bits)
{
    uint64_t r = splitmix64(s);
    long v = bits < 2 ? 1 : (1L << (bits - 1)) + 1 + 2 * (long)((r >> 1) % (1ull << (bits - 2)));
    return (float)((r & 1) ? -v : v);
}

/* What every wideint value of one fill shares, worked out once per fill, not per element. */
struct wideint_shape {
    int products, bits; /* sums of the inputs: odd integers of `bits` bits */
    int amp;            /* products, B: halves j/2 with |j| <= amp, on every stride-th row */
    long stride;
    long row; /* products: B's row length (N) */
};

static struct wideint_shape wideint_shape(long len, int products, long row)
{
    struct wideint_shape w = {products, 1, 0, 1, row};
    while (w.bits < 24 && len * ((1L << (w.bits + 1)) - 1) <= (1L << 24) - 1)
        w.bits++;
    w.amp = gen_wideint_amplitude(len, &w.stride);
    return w;
}

/* Products: A (stream 0) odd integers of 12 bits, 2049..4095, so a TF32 (11-bit) or bf16
 * (8-bit) copy differs in every element; B (stream 1) halves j/2, |j| <= amplitude, on
 * every stride-th row of K and zero elsewhere, so at most 4097 terms per output are
 * nonzero and every sum is exact. Sums of the inputs: odd integers as wide as len terms allow. */
static float wideint_value(uint64_t *s, const struct wideint_shape *w, int stream, size_t i)
{
    if (!w->products)
        return wideint_odd(s, w->bits);
    if (stream == 0)
        return wideint_odd(s, 12); /* at most WIDEINT_TOP */
    float v = (float)((long)(splitmix64(s) % (uint64_t)(2 * w->amp + 1)) - w->amp) * 0.5f;
    long row = w->row > 0 ? (long)(i / (size_t)w->row) : 0;
    return row % w->stride ? 0.0f : v;
}

/* Each (seed, stream) its own sequence. */
static uint64_t gen_state(const struct hb_case *c, int stream)
{
    return c->seed * 0x2545f4914f6cdd1dull + (uint64_t)stream * 0x9e3779b97f4a7c15ull + 1;
}

void gen_uniform(double *out, size_t n, const struct hb_case *c, int stream, double lo, double hi, int whole)
{
    uint64_t s = gen_state(c, stream);
    for (size_t i = 0; i < n; i++) {
        double u = (double)(splitmix64(&s) >> 11) * 0x1p-53; /* [0, 1) with 53 random bits */
        out[i] = whole ? floor(lo + u * (hi - lo)) : lo + u * (hi - lo);
        if (out[i] >= hi) /* rounding at the top of a wide range */
            out[i] = whole ? hi - 1 : nextafter(hi, lo);
    }
}

static void fill(float *out, size_t n, const struct hb_case *c, long len, int products, long row, int stream)
{
    uint64_t s = gen_state(c, stream);
    len = len < 1 ? 1 : len;
    int amp = gen_exact_amplitude(len, products ? 2 : 1);
    struct wideint_shape w = wideint_shape(len, products, row);
    for (size_t i = 0; i < n; i++) {
        switch (c->dist) {
        case DIST_WIDEINT: out[i] = wideint_value(&s, &w, stream, i); break;
        case DIST_EXACT: out[i] = (float)((long)(splitmix64(&s) % (uint64_t)(2 * amp + 1)) - amp) * 0.5f; break;
        case DIST_CANCEL: {
            float mag = ldexpf(1.0f + unit(&s), (int)(splitmix64(&s) % 41) - 20);
            out[i] = (splitmix64(&s) & 1) ? -mag : mag;
            break;
        }
        default: out[i] = 2.0f * unit(&s) - 1.0f;
        }
    }
    if (c->dist != DIST_SPECIAL || !n)
        return;
    /* Every requested special value at least once; NaN and Inf sparsely (one poisons a whole
     * row or column of C), -0.0 and subnormals about one element in 64. */
    size_t sparse = n / 256 + 1, dense = n / 64 + 1;
    for (size_t k = 0; k < dense; k++) {
        if (c->specials & SPECIAL_NAN && k < sparse)
            out[splitmix64(&s) % n] = NAN;
        if (c->specials & SPECIAL_INF && k < sparse)
            out[splitmix64(&s) % n] = (splitmix64(&s) & 1) ? -INFINITY : INFINITY;
        if (c->specials & SPECIAL_NEGZERO)
            out[splitmix64(&s) % n] = -0.0f;
        if (c->specials & SPECIAL_SUBNORMAL)
            out[splitmix64(&s) % n] = (unit(&s) + 0x1p-24f) * FLT_MIN * ((splitmix64(&s) & 1) ? -1 : 1);
    }
}

void gen_fill(float *out, size_t n, const struct hb_case *c, long len, int stream)
{
    fill(out, n, c, len, 0, 0, stream);
}

void gen_fill_products(float *out, size_t n, const struct hb_case *c, long len, long row, int stream)
{
    fill(out, n, c, len, 1, row, stream);
}
