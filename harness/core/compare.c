/* SPDX-License-Identifier: MIT */
/* compare.c: error figures (which verdict they earn is verdict.c's business).
 *
 * One output sums K terms t_k (a_ik b_kj for sgemm, x_i for a block partial); ref.h gives
 * its float64 truth c, gauge g = sum |t_k| and spread s = sqrt(sum t_k^2). The ratio is
 * netlib sblat3's componentwise test ratio, scaled by the gauge so cancellation cannot
 * inflate it:   ratio = |c_got - c| / (eps g),   eps = FLT_EPSILON = 2^-23 = 2u.
 * Threshold:    T = 16 + 2 sqrt(K) (|c| + s) / g
 * Derivation. Any order of fp32 additions rounds each partial sum p_n (at most K of them in
 * a chain) with an error of at most u |p_n|, each product t_k with at most u |t_k| (fmaf:
 * none). Summed worst case that is gamma_K g ~ K u g, but the errors are independent and of
 * either sign (Higham & Mary 2019), so they add as a random walk: about u sqrt(sum p_n^2 / 3).
 * A partial sum of m of the K terms is about (m/K) c plus a walk of size sqrt(m/K) s, so
 * |p_n| <~ |c| + s and the error is about (u / sqrt 3) sqrt(K) (|c| + s), 0.29 sqrt(K)
 * (|c| + s) / g in ratio units; 2 sqrt(K) (|c| + s) / g is seven times that. 16 is sblat3's
 * pass level for short sums; the products' own rounding adds at most u g, a ratio of 0.5.
 * All-positive data (|c| = g) keep at least the old 2 sqrt(K); signed data, |c| ~ s ~ sqrt(K)
 * rms|t| but g ~ K mean|t|, get T ~ 21 at any K (uniform [-1, 1): (|c| + s) / g ~ 1.8 * 4 /
 * (3 sqrt K)), where max(16, 2 sqrt K) allowed 512 at K = 65537 (1.2% of a typical |C|).
 * Measured by tests/test_bound.c on every generated distribution, K = 1..262145, with 14
 * correct orders (sequential, fmaf, pairwise, split-K 2..64, Kahan, BK = 8 slices, atomics
 * in random order, flush to zero, a 256-thread tree): worst 0.08 T. All-positive data (not
 * generated) reach 0.22 T at K = 2^18.
 * What it catches. A ratio past T is SUSPECT (reported, not failing: an order no test
 * foresaw can land there); past 4 T it is FAIL. A lost or doubled term t costs
 * |t| / (eps g) = (|t| / mean|t|) / (K eps): 8e6 at K = 1 (not "1/eps" at every K), and on
 * uniform data it FAILs once |t| > 4 T eps K mean|t|, about 0.003 of a mean term at K = 255,
 * 0.04 at 4097, 0.65 at 65537, 2.6 at 262145. Errors that grow like sqrt(K) sink below 16
 * at long K: TF32 inputs (2^-11) on uniform data stop failing past K ~ 10^4, so the wideint
 * distribution (exact, 12-bit factors) catches them bit for bit.
 * Exact elements (ref.h: every order gives c exactly) must match bit for bit: 0 ULP.
 * Allowances subtracted from the error, not the ratio (ref.h's flush): what flushing
 * subnormal inputs may change, and FLT_MIN per product and addition only where the terms
 * lie off the FLT_MIN grid (elsewhere no product or partial sum can be subnormal).
 * Overflow: round to nearest gives Inf from 2^128 - 2^103 (the midpoint above FLT_MAX) up.
 * Inf or NaN where the terms of that sign, (g +- c) / 2, reach that within the bound is an
 * intermediate overflow a correct order may hit: counted in `overflowed`, SUSPECT.
 * For C = alpha A B + beta C0 the terms are alpha a_k b_kj and beta c0_ij: the same rule,
 * with sblat3's gauge |alpha||A||B| + |beta||C0| and the spread of those terms. */
#include "compare.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "guard.h"
#include "types.h"

/* The threshold's two parts and the band above it that is SUSPECT rather than FAIL (the
 * opening comment says why). */
#define BASE_THRESHOLD 16.0
#define WALK_FACTOR 2.0
#define SUSPECT_FACTOR 4.0
/* Round to nearest overflows from the midpoint between FLT_MAX and 2^128 up. */
#define OVERFLOW_AT (0x1p128 - 0x1p103)

void cmp_init(struct cmp_result *r)
{
    memset(r, 0, sizeof *r);
    r->first_i = r->first_j = -1;
    r->oob_buffer = -1;
}

uint64_t cmp_ulp(float a, float b) { return ty_ulp(TY_F32, &a, &b); }

double cmp_threshold(long len, double gauge, double magnitude)
{
    if (!(gauge > 0) || !isfinite(gauge) || len <= 0)
        return BASE_THRESHOLD;
    return BASE_THRESHOLD + WALK_FACTOR * sqrt((double)len) * magnitude / gauge;
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

/* What the reference says about one output element, and where it sits. */
struct elem {
    double ref64, gauge, spread, flush;
    double close; /* the reference in the output's type, which ULPs are counted against */
    long len;     /* terms summed */
    int exact;    /* every order must give ref64 bit for bit */
    long i, j, cell;
    enum hb_type ty; /* the output's: f32, or f64 (an f64 reduction) */
};

/* The bound's unit roundoff (times 2) and where round to nearest overflows, by type: a float64
 * truth past DBL_MAX is an infinity already. */
static double elem_eps(const struct elem *e) { return e->ty == TY_F64 ? DBL_EPSILON : FLT_EPSILON; }
static double elem_overflow(const struct elem *e) { return e->ty == TY_F64 ? INFINITY : OVERFLOW_AT; }

static void note_bad(struct cmp_result *r, const struct elem *e, double got)
{
    if (r->bad++ == 0) {
        r->first_i = e->i, r->first_j = e->j;
        r->first_expected = e->ref64, r->first_got = (float)got;
        if (e->ty == TY_F64) /* every digit: a float would round the difference away */
            snprintf(r->first_values, sizeof r->first_values, "expected %.17g got %.17g (f64)", e->ref64, got);
    }
}

/* Keeps the (ratio, threshold) pair of the element nearest its threshold. */
static void note_ratio(struct cmp_result *r, double ratio, double t)
{
    int first = r->threshold == 0, strictest = ratio == 0 && r->max_ratio == 0 && t < r->threshold;
    if (first || strictest || ratio * r->threshold > r->max_ratio * t)
        r->max_ratio = ratio, r->threshold = t;
}

/* A NaN's payload (mantissa less the quiet bit) survives arithmetic on x86 and GPUs alike,
 * so it names the pattern it came from; its sign and quiet bit do not. */
#define NAN_PAYLOAD(bits) ((bits)&0x003fffffu)

static void count_nan_origin(struct cmp_result *r, const struct elem *e, double got)
{
    if (!isnan(got))
        return;
    if (e->ty != TY_F32) { /* the patterns are f32's */
        r->nan_other++;
        return;
    }
    float f = (float)got;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if (NAN_PAYLOAD(bits) == NAN_PAYLOAD(GRD_POISON_BITS))
        r->nan_poison++;
    else if (grd_is_band_payload(NAN_PAYLOAD(bits)))
        r->nan_guard++;
    else
        r->nan_other++;
}

static void mark_nan(struct cmp_result *r, const struct elem *e, double got)
{
    count_nan_origin(r, e, got);
    heat_mark(r, e->cell, CMP_HEAT_NAN);
    r->nan_mismatch++;
    r->classes |= CLS_NAN;
    note_bad(r, e, got);
}

/* A non-finite result, or a truth that rounds to +-Inf. Returns whether it is bad, or -1 when
 * the element is to be judged by its ratio after all (a finite result next to overflow). */
static int check_nonfinite(struct cmp_result *r, const struct elem *e, double got, double t)
{
    double ref = e->ref64, overflow = elem_overflow(e);
    if (isnan(ref) || isnan(got) || isinf(got)) {
        int same_inf = isinf(got) && fabs(ref) >= overflow && !signbit(got) == !signbit(ref);
        if (isnan(ref) ? isnan(got) : same_inf)
            return 0;
        /* Terms of one sign sum to (gauge +- truth) / 2: only where that reaches overflow can an
         * order overflow to that sign's Inf, and to NaN only where both signs can. */
        double slack = t * elem_eps(e) * e->gauge;
        int pos = (e->gauge + ref) / 2 + slack >= overflow;
        int neg = (e->gauge - ref) / 2 + slack >= overflow;
        int reach = isnan(got) ? pos && neg : signbit(got) ? neg : pos;
        if (isfinite(ref) && isfinite(e->gauge) && reach) {
            heat_mark(r, e->cell, 1);
            r->overflowed++;
            r->suspect = 1;
            note_bad(r, e, got);
            return 1;
        }
        mark_nan(r, e, got);
        return 1;
    }
    if (isinf(ref)) {
        mark_nan(r, e, got);
        return 1;
    }
    return -1; /* finite result, finite truth past the overflow boundary: near it, within the bound */
}

static void mark_unwritten(struct cmp_result *r, const struct elem *e, double got)
{
    heat_mark(r, e->cell, CMP_HEAT_UNWRITTEN);
    r->unwritten++;
    r->classes |= CLS_UNWRITTEN;
    note_bad(r, e, got);
}

/* An output that started as the given C (a kernel that takes beta) and still holds its bits
 * where they are not the truth: never written, whatever value C happened to hold. */
static int left_as_given(const struct elem *e, float got, const float *given)
{
    if (!given || memcmp(&got, given, sizeof got) || !isfinite(got) || !isfinite(e->ref64))
        return 0;
    double err = fabs((double)got - e->ref64);
    if (e->exact)
        return err != 0;
    double t = cmp_threshold(e->len, e->gauge, fabs(e->ref64) + e->spread);
    return err - e->flush > SUSPECT_FACTOR * t * FLT_EPSILON * e->gauge;
}

/* The ULP distance of the output element at p from the element's reference in its type. */
static uint64_t elem_ulp(const struct elem *e, const void *p)
{
    if (e->ty == TY_F64)
        return ty_ulp(TY_F64, p, &e->close);
    float close = (float)e->close;
    return ty_ulp(TY_F32, p, &close);
}

/* One element (at p, of the element's type): updates the figures, returns whether it is bad. */
static int check_element(struct cmp_result *r, const struct elem *e, const void *p)
{
    double got = ty_value(e->ty, p), eps = elem_eps(e);
    if (ty_bits(e->ty, p) == ty_get(e->ty)->poison) {
        mark_unwritten(r, e, got);
        return 1;
    }
    double t = cmp_threshold(e->len, e->gauge, fabs(e->ref64) + e->spread);
    /* ULPs mean something only where the value stands above the error bound: a result that
     * cancels to near zero can flip sign and be 2^31 ULPs from OpenBLAS while both are right. */
    uint64_t ulp = elem_ulp(e, p);
    if (ulp != UINT64_MAX && ulp > r->max_ulp && fabs(e->ref64) > t * eps * e->gauge)
        r->max_ulp = ulp;
    int past_overflow = fabs(e->ref64) >= elem_overflow(e);
    if (past_overflow || !isfinite(e->ref64) || !isfinite(got)) {
        int bad = check_nonfinite(r, e, got, t);
        if (bad >= 0)
            return bad;
    }
    double err = fabs(got - e->ref64);
    if (e->exact) {
        note_ratio(r, err != 0 ? INFINITY : 0, t);
        if (err == 0)
            return 0;
        heat_mark(r, e->cell, 250);
        r->classes |= CLS_WRONG;
        note_bad(r, e, got);
        return 1;
    }
    double excess = err - e->flush;
    double ratio = excess <= 0 ? 0 : e->gauge > 0 ? excess / (eps * e->gauge) : INFINITY;
    note_ratio(r, ratio, t);
    if (!(ratio > t))
        return 0;
    if (past_overflow) {
        mark_nan(r, e, got); /* a finite result where float rounds the truth to Inf */
        return 1;
    }
    heat_mark(r, e->cell, cmp_heat_level(ratio, t));
    if (ratio > SUSPECT_FACTOR * t)
        r->classes |= CLS_WRONG;
    else
        r->suspect = 1;
    note_bad(r, e, got);
    return 1;
}

/* A failure outranks the grey band; with nothing compared, the threshold is the floor. */
static void finish(struct cmp_result *r)
{
    if (r->classes & CLS_WRONG)
        r->suspect = 0;
    if (r->threshold == 0)
        r->threshold = BASE_THRESHOLD;
}

void cmp_sgemm(const struct ref_sgemm *ref, const float *got, int exact, struct cmp_result *out)
{
    cmp_sgemm_given(ref, NULL, got, exact, out);
}

void cmp_sgemm_given(const struct ref_sgemm *ref, const float *given, const float *got, int exact,
                     struct cmp_result *out)
{
    out->elements = ref->M * ref->N;
    for (long i = 0; i < ref->M; i++)
        for (long j = 0; j < ref->N; j++) {
            size_t at = (size_t)i * ref->N + j;
            struct elem e = {ref->c64[at],
                             ref->gauge[at],
                             ref->spread[at],
                             ref->flush ? ref->flush[at] : 0,
                             ref->c32[at],
                             ref->terms,
                             exact || ref->exact[at],
                             i,
                             j,
                             (i * CMP_HEAT / ref->M) * CMP_HEAT + j * CMP_HEAT / ref->N,
                             TY_F32};
            if (left_as_given(&e, got[at], given ? &given[at] : NULL))
                mark_unwritten(out, &e, got[at]);
            else
                check_element(out, &e, &got[at]);
        }
    finish(out);
}

void cmp_reduce(const struct ref_reduce *ref, const float *partials, int exact, struct cmp_result *out)
{
    cmp_reduce_typed(ref, TY_F32, partials, exact, out);
}

void cmp_reduce_typed(const struct ref_reduce *ref, enum hb_type ty, const void *partials, int exact,
                      struct cmp_result *out)
{
    size_t size = ty_get(ty)->size;
    out->elements = ref->blocks;
    double total = 0;
    for (long b = 0; b < ref->blocks; b++) {
        long len = (b + 1) * ref->chunk < ref->n ? ref->chunk : ref->n - b * ref->chunk;
        const void *p = (const char *)partials + (size_t)b * size;
        struct elem e = {ref->partial64[b],
                         ref->gauge[b],
                         ref->spread[b],
                         ref->flush ? ref->flush[b] : 0,
                         ty == TY_F64 ? ref->partial64[b] : (float)ref->partial64[b],
                         len,
                         exact || ref->exact[b],
                         b,
                         -1,
                         b * (CMP_HEAT * CMP_HEAT) / ref->blocks,
                         ty};
        check_element(out, &e, p);
        total += ty_value(ty, p);
    }
    double scale = fabs(ref->total64) > 0 ? fabs(ref->total64) : ref->total_abs;
    double diff = fabs(total - ref->total64);
    out->total_rel_err = scale > 0 ? diff / scale : diff;
    finish(out);
}
