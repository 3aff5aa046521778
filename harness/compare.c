/* compare.c: error figures and verdicts.
 *
 * The ratio is netlib sblat3's componentwise test ratio against the float64 truth:
 *   ratio_ij = |c_ij - c64_ij| / (eps * (|A||B|)_ij),   eps = FLT_EPSILON = 2^-23.
 * Scaling by |A||B| instead of |C| makes the test immune to cancellation. A sum of K
 * products in float has a worst-case error of about K*u*(|A||B|) (u = eps/2), but rounding
 * errors behave as a random walk (Higham & Mary, 2019), so real kernels stay near
 * sqrt(K)*u*(|A||B|); all-positive data of length K = 65537 measured about 0.3*sqrt(K).
 * Threshold: max(16, 2*sqrt(K)). 16 is sblat3's pass level for short sums; 2*sqrt(K)
 * follows the random-walk growth for long ones. A ratio up to 4x the threshold is SUSPECT
 * (reported, not failing: a different summation order such as split-K can land there);
 * beyond it is FAIL. A lost or doubled term costs ~1/eps = 8e6: far past any threshold.
 * Reductions use the same rule with K = the block's element count and sum |x| as gauge.
 * Exact-distribution cases (every order sums exactly) must match bit for bit: 0 ULP.
 * Allowances added to the error, not the ratio: what flushing subnormal inputs to zero may
 * change (a device may flush) and 2*K*FLT_MIN for products and sums that underflow. */
#include "compare.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "guard.h"

/* Band above the threshold that is SUSPECT rather than FAIL. */
#define SUSPECT_FACTOR 4.0

void cmp_init(struct cmp_result *r)
{
    memset(r, 0, sizeof *r);
    r->first_i = r->first_j = -1;
    r->oob_buffer = -1;
}

static int64_t ordered(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (bits & 0x80000000u) ? -(int64_t)(bits & 0x7fffffffu) : (int64_t)bits;
}

uint64_t cmp_ulp(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    int64_t d = ordered(a) - ordered(b);
    return (uint64_t)(d < 0 ? -d : d);
}

double cmp_threshold(long len)
{
    double t = 2.0 * sqrt((double)(len > 0 ? len : 0));
    return t > 16.0 ? t : 16.0;
}

static int is_poison(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits == GRD_POISON_BITS;
}

unsigned char cmp_heat_level(double ratio, double threshold)
{
    if (!(ratio > threshold))
        return 0;
    double steps = isfinite(ratio) ? log2(ratio / threshold) * 8.0 + 1.0 : 250.0;
    return (unsigned char)(steps > 250.0 ? 250.0 : steps);
}

/* Raises one heat cell; the special kinds outrank any ratio. */
static void heat_mark(struct cmp_result *r, long cell, unsigned char level)
{
    if (level > r->heat[cell])
        r->heat[cell] = level;
}

static void note_bad(struct cmp_result *r, long i, long j, double expected, float got)
{
    if (r->bad++ == 0) {
        r->first_i = i, r->first_j = j;
        r->first_expected = expected, r->first_got = got;
    }
}

/* One element: updates the figures, returns whether it is bad. */
static int check_element(struct cmp_result *r, double ref64, float openblas, double gauge, double flush,
                         long len, float got, int exact, double threshold, long i, long j, long cell)
{
    if (is_poison(got)) {
        heat_mark(r, cell, CMP_HEAT_UNWRITTEN);
        r->unwritten++;
        r->classes |= CLS_UNWRITTEN;
        note_bad(r, i, j, ref64, got);
        return 1;
    }
    /* ULPs mean something only where the value stands above the error bound: a result that
     * cancels to near zero can flip sign and be 2^31 ULPs from OpenBLAS while both are right. */
    uint64_t ulp = cmp_ulp(got, openblas);
    if (ulp != UINT64_MAX && ulp > r->max_ulp && fabs(ref64) > threshold * FLT_EPSILON * gauge)
        r->max_ulp = ulp;
    /* Non-finite results must match the float64 truth's category exactly. A finite truth
     * beyond FLT_MAX rounds to Inf in float. */
    int ref_nan = isnan(ref64);
    int ref_inf = !ref_nan && fabs(ref64) > (double)FLT_MAX * (1.0 + FLT_EPSILON / 2);
    if (ref_nan || ref_inf || !isfinite(got)) {
        int ok = ref_nan ? isnan(got) : ref_inf ? (isinf(got) && !signbit(got) == !signbit(ref64)) : 0;
        if (!ok) {
            heat_mark(r, cell, CMP_HEAT_NAN);
            r->nan_mismatch++;
            r->classes |= CLS_NAN;
            note_bad(r, i, j, ref64, got);
        }
        return !ok;
    }
    double err = fabs((double)got - ref64);
    if (exact) {
        if (err != 0) {
            heat_mark(r, cell, 250);
            r->classes |= CLS_WRONG;
            r->max_ratio = INFINITY;
            note_bad(r, i, j, ref64, got);
            return 1;
        }
        return 0;
    }
    double excess = err - flush - 2.0 * (double)len * FLT_MIN;
    double ratio = excess <= 0 ? 0 : gauge > 0 ? excess / (FLT_EPSILON * gauge) : INFINITY;
    if (ratio > r->max_ratio)
        r->max_ratio = ratio;
    if (ratio > threshold) {
        heat_mark(r, cell, cmp_heat_level(ratio, threshold));
        if (ratio > SUSPECT_FACTOR * threshold)
            r->classes |= CLS_WRONG;
        else
            r->suspect = 1;
        note_bad(r, i, j, ref64, got);
        return 1;
    }
    return 0;
}

void cmp_sgemm(const struct ref_sgemm *ref, const float *got, int exact, struct cmp_result *out)
{
    double threshold = cmp_threshold(ref->K);
    out->threshold = threshold;
    out->elements = ref->M * ref->N;
    for (long i = 0; i < ref->M; i++)
        for (long j = 0; j < ref->N; j++) {
            size_t at = (size_t)i * ref->N + j;
            long cell = (i * CMP_HEAT / ref->M) * CMP_HEAT + j * CMP_HEAT / ref->N;
            check_element(out, ref->c64[at], ref->c32[at], ref->gauge[at], ref->flush ? ref->flush[at] : 0,
                          ref->K, got[at], exact, threshold, i, j, cell);
        }
    if (out->classes & CLS_WRONG)
        out->suspect = 0;
}

void cmp_reduce(const struct ref_reduce *ref, const float *partials, int exact, struct cmp_result *out)
{
    out->elements = ref->blocks;
    double total = 0;
    for (long b = 0; b < ref->blocks; b++) {
        long len = (b + 1) * ref->chunk < ref->n ? ref->chunk : ref->n - b * ref->chunk;
        double threshold = cmp_threshold(len);
        if (threshold > out->threshold)
            out->threshold = threshold;
        long cell = b * (CMP_HEAT * CMP_HEAT) / ref->blocks;
        check_element(out, ref->partial64[b], (float)ref->partial64[b], ref->gauge[b],
                      ref->flush ? ref->flush[b] : 0, len, partials[b], exact, threshold, b, -1, cell);
        total += partials[b];
    }
    double scale = fabs(ref->total64) > 0 ? fabs(ref->total64) : ref->total_abs;
    double diff = fabs(total - ref->total64);
    out->total_rel_err = scale > 0 ? diff / scale : diff;
    if (out->classes & CLS_WRONG)
        out->suspect = 0;
}
