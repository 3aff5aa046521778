/* SPDX-License-Identifier: MIT */
/* custom_compare.c: a custom kernel's outputs against its reference's, element by element in
 * each output's type (custom.h), a pure function of the two. The user's tolerance is the bound
 * for floats (exact: 0 ULP, so +0 = -0; ulp N; rel R abs A: |got - expected| <= A + R
 * |expected|), with no grey band above it: the user chose it. Integers are exact. Any two NaNs
 * match; a NaN or an infinity against anything else is nan-mismatch; an element holding either
 * of its type's poisons where the reference differs is unwritten, and so is one that held each
 * poison a launch started from where the reference holds the poison's value (cus_never_written).
 * Ratios are in units of the tolerance (threshold 1). Which verdict the figures earn is
 * verdict.c's business. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "custom.h"
#include "guard.h"
#include "text.h"

/* What one output's elements are measured with. */
struct cus_judge {
    const struct cus_desc *d;
    const struct cus_buffer *b;
    const struct ty_info *t;
    long rows, cols; /* the output as a matrix; rows 1 for a list */
    unsigned char heat[CMP_HEAT * CMP_HEAT];
    long bad;
};

/* Output buffer i as a matrix (rows x cols; 1 x its length for a list). */
static void cus_judge_init(struct cus_judge *j, const struct cus_desc *d, const struct cus_data *cd, int i)
{
    memset(j, 0, sizeof *j);
    j->d = d, j->b = &d->bufs[i], j->t = ty_get(d->bufs[i].type);
    j->rows = 1, j->cols = (long)cd->count[i];
    if (j->b->len.rows >= 0) {
        j->rows = cd->sizes[j->b->len.rows], j->cols = cd->sizes[j->b->len.cols];
        if (j->rows < 1 || j->cols < 1)
            j->rows = 1, j->cols = (long)cd->count[i];
    }
}

/* The heat map cell of element `at`. */
static long cus_cell(const struct cus_judge *j, long at)
{
    return j->rows > 1 ? (at / j->cols) * CMP_HEAT / j->rows * CMP_HEAT + (at % j->cols) * CMP_HEAT / j->cols
                       : at * (CMP_HEAT * CMP_HEAT) / j->cols;
}

/* got's distance from expected (values g and w) in units of the tolerance: 0 within it
 * exactly, 1 at it. */
static double cus_ratio(const struct cus_judge *j, double g, double w, uint64_t ulp)
{
    if (!j->t->is_float || j->d->tol == CUS_TOL_EXACT)
        return ulp ? INFINITY : 0;
    if (j->d->tol == CUS_TOL_ULP)
        return ulp == 0 ? 0 : j->d->ulp > 0 ? (double)ulp / j->d->ulp : INFINITY;
    double err = fabs(g - w), bound = j->d->abs + j->d->rel * fabs(w);
    return err == 0 ? 0 : bound > 0 ? err / bound : INFINITY;
}

static void cus_first(struct cmp_result *r, const struct cus_judge *j, long at, const void *got, const void *want)
{
    if (r->bad++)
        return;
    char g[48], w[48];
    ty_format(j->b->type, got, g, sizeof g);
    ty_format(j->b->type, want, w, sizeof w);
    r->first_i = j->rows > 1 ? at / j->cols : at;
    r->first_j = j->rows > 1 ? at % j->cols : -1;
    r->first_expected = ty_value(j->b->type, want);
    r->first_got = (float)ty_value(j->b->type, got);
    snprintf(r->first_buffer, sizeof r->first_buffer, "%s", j->b->name);
    txt_printf(r->first_values, sizeof r->first_values, "expected %s got %s (%s)", w, g, j->t->name);
}

/* A NaN's origin, as compare.c counts f32 ones: the output poison or the guard pattern. */
static void cus_nan_origin(struct cmp_result *r, const struct cus_judge *j, const void *got)
{
    uint32_t bits = (uint32_t)ty_bits(j->b->type, got) & 0x003fffffu;
    if (j->b->type == TY_F32 && bits == (GRD_POISON_BITS & 0x003fffffu))
        r->nan_poison++;
    else if (j->b->type == TY_F32 && grd_is_band_payload(bits))
        r->nan_guard++;
    else
        r->nan_other++;
}

/* One element: 1 when bad, with the heat cell it marks. Each element's bits and value are read
 * once: outputs run to 2^31 elements, judged in the parent while workers wait. */
static int cus_element(struct cmp_result *r, struct cus_judge *j, long at, const void *got, const void *want)
{
    enum hb_type t = j->b->type;
    uint64_t gb = ty_bits(t, got), wb = ty_bits(t, want);
    if (gb == wb)
        return 0;
    unsigned char level;
    double g = ty_value(t, got), w = ty_value(t, want); /* integers are never NaN nor infinite */
    int gnan = isnan(g), wnan = isnan(w);
    if (gb == j->t->poison || gb == j->t->poison2) {
        r->unwritten++, r->classes |= CLS_UNWRITTEN, level = CMP_HEAT_UNWRITTEN;
    } else if (gnan && wnan) {
        return 0;
    } else if (gnan || wnan || isinf(g) || isinf(w)) {
        if (gnan)
            cus_nan_origin(r, j, got);
        r->nan_mismatch++, r->classes |= CLS_NAN, level = CMP_HEAT_NAN;
    } else {
        uint64_t ulp = ty_ulp(t, got, want);
        if (j->t->is_float && ulp > r->max_ulp)
            r->max_ulp = ulp;
        double ratio = cus_ratio(j, g, w, ulp);
        if (ratio > r->max_ratio)
            r->max_ratio = ratio;
        if (!(ratio > 1))
            return 0;
        r->classes |= CLS_WRONG, level = cmp_heat_level(ratio, 1);
    }
    long cell = cus_cell(j, at);
    if (level > j->heat[cell])
        j->heat[cell] = level;
    cus_first(r, j, at, got, want);
    return 1;
}

/* The elements of an f32 output under rel/abs, the bulk of a huge case: a finite element within
 * the bound costs no more than its two figures, any other goes to cus_element. */
static long cus_f32_bound(struct cmp_result *r, struct cus_judge *j, const float *got, const float *want, size_t n)
{
    long bad = 0;
    for (size_t e = 0; e < n; e++) {
        float g = got[e], w = want[e];
        if (!memcmp(&g, &w, sizeof g))
            continue;
        double ratio = cus_ratio(j, g, w, 0); /* rel/abs: the ULP distance is not asked */
        if (!isfinite(g) || !isfinite(w) || !(ratio <= 1)) {
            bad += cus_element(r, j, (long)e, &got[e], &want[e]);
            continue;
        }
        uint64_t ulp = cmp_ulp(g, w);
        if (ulp > r->max_ulp)
            r->max_ulp = ulp;
        if (ratio > r->max_ratio)
            r->max_ratio = ratio;
    }
    return bad;
}

void cus_compare(const struct cus_desc *d, const struct cus_data *cd, const void *const got[], struct cmp_result *cmp)
{
    cmp->threshold = 1;
    if (!cd || cd->error[0]) {
        cmp->classes |= CLS_REFERENCE;
        return;
    }
    int mapped = 0;
    for (int i = 0; i < d->n_bufs; i++) {
        const struct cus_buffer *b = &d->bufs[i];
        if (b->role != CUS_OUT && b->role != CUS_INOUT)
            continue;
        struct cus_judge j;
        cus_judge_init(&j, d, cd, i);
        size_t size = j.t->size;
        if (b->type == TY_F32 && d->tol == CUS_TOL_REL)
            j.bad += cus_f32_bound(cmp, &j, got[i], cd->expect[i], cd->count[i]);
        else
            for (size_t e = 0; e < cd->count[i]; e++)
                j.bad += cus_element(cmp, &j, (long)e, (const char *)got[i] + e * size,
                                     (const char *)cd->expect[i] + e * size);
        cmp->elements += (long)cd->count[i];
        /* The map shows the first output with a bad element. */
        if (j.bad && !mapped++) {
            memcpy(cmp->heat, j.heat, sizeof cmp->heat);
            cmp->heat_rows = j.rows, cmp->heat_cols = j.cols;
        }
    }
}

void cus_never_written(const struct cus_desc *d, const struct cus_data *cd, const void *const first[],
                       const void *const again[], struct cmp_result *cmp)
{
    if (!cd || cd->error[0])
        return;
    for (int i = 0; i < d->n_bufs; i++) {
        if (d->bufs[i].role != CUS_OUT)
            continue;
        struct cus_judge j;
        cus_judge_init(&j, d, cd, i);
        enum hb_type t = j.b->type;
        size_t size = j.t->size;
        for (size_t e = 0; e < cd->count[i]; e++) {
            const char *f = (const char *)first[i] + e * size, *a = (const char *)again[i] + e * size;
            const char *w = (const char *)cd->expect[i] + e * size;
            if (ty_bits(t, f) != j.t->poison || ty_bits(t, a) != j.t->poison2 || ty_bits(t, w) != j.t->poison)
                continue; /* written, or counted by the first launch's comparison */
            cmp->unwritten++, cmp->classes |= CLS_UNWRITTEN;
            if (!cmp->bad) /* the map is of the first output with a bad element */
                cmp->heat_rows = j.rows, cmp->heat_cols = j.cols, memset(cmp->heat, 0, sizeof cmp->heat);
            if (!cmp->bad || !strcmp(cmp->first_buffer, j.b->name))
                cmp->heat[cus_cell(&j, (long)e)] = CMP_HEAT_UNWRITTEN;
            cus_first(cmp, &j, (long)e, a, w); /* the row names the repeat's value */
        }
    }
}
