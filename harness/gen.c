/* gen.c: deterministic input generation (splitmix64 per case seed and stream). The value
 * families are the ones the brief asks for: exact (small multiples of 1/2, every order
 * sums exactly), uniform [-1, 1), cancellation-heavy (random signs, magnitudes 2^-20..2^20),
 * and special (uniform plus NaN, +-Inf, -0.0 and subnormals at seeded places). */
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

void gen_fill(float *out, size_t n, const struct hb_case *c, long len, int stream)
{
    uint64_t s = c->seed * 0x2545f4914f6cdd1dull + (uint64_t)stream * 0x9e3779b97f4a7c15ull + 1;
    int amp = gen_exact_amplitude(len < 1 ? 1 : len, op_is_gemm(c->op) ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        switch (c->dist) {
        case DIST_EXACT:
            out[i] = (float)((long)(splitmix64(&s) % (uint64_t)(2 * amp + 1)) - amp) * 0.5f;
            break;
        case DIST_CANCEL: {
            float mag = ldexpf(1.0f + unit(&s), (int)(splitmix64(&s) % 41) - 20);
            out[i] = (splitmix64(&s) & 1) ? -mag : mag;
            break;
        }
        default:
            out[i] = 2.0f * unit(&s) - 1.0f;
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
