/* SPDX-License-Identifier: MIT */
/* reduce_exact.c: the references and comparison of reductions every order computes exactly
 * (reduce.h): integer sums (two's complement wraps alike in any order, so the partials are
 * exact modulo 2^32 even where they overflow) and max or min of any type (the result is one of
 * the elements). A pure function of x and the form; the arrays are the parent's own. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "reduce.h"
#include "text.h"

/* One output over x[0..len): the combine of the identity and every element. */
static void exact_one(const struct kern_reduce *r, enum hb_type xt, const void *x, long len, void *want,
                      unsigned char *nan_ok)
{
    enum hb_type pt = red_partial_type(xt);
    size_t size = ty_get(xt)->size;
    if (r->combine == RED_SUM && !ty_get(pt)->is_float) {
        uint64_t acc = r->identity_bits;
        for (long i = 0; i < len; i++)
            acc += ty_bits(xt, (const char *)x + (size_t)i * size);
        ty_store_bits(pt, want, acc);
        return;
    }
    double acc = r->identity;
    for (long i = 0; i < len; i++) {
        double v = ty_value(xt, (const char *)x + (size_t)i * size);
        if (isnan(v))
            *nan_ok = 1; /* fmaxf passes over it; a comparison may keep it */
        else if (r->combine == RED_SUM)
            acc += v; /* a float sum reaches here only over no element (one total of n = 0) */
        else if (r->combine == RED_MAX ? v > acc : v < acc)
            acc = v;
    }
    ty_store(pt, want, acc);
}

void red_exact_compute(struct red_exact *e, const struct kern_reduce *r, const void *x, long n, long chunk)
{
    memset(e, 0, sizeof *e);
    enum hb_type xt = (enum hb_type)r->type;
    e->type = red_partial_type(xt);
    e->combine = r->combine;
    long per = r->one_total ? (n > 0 ? n : 1) : chunk;
    e->outputs = r->one_total ? 1 : n / chunk + (n % chunk != 0);
    size_t psize = ty_get(e->type)->size;
    e->want = arena_calloc_own((size_t)e->outputs + 1, psize);
    e->nan_ok = arena_calloc_own((size_t)e->outputs + 1, 1);
    for (long b = 0; b < e->outputs; b++) {
        long start = b * per, len = start + per < n ? per : n - start;
        exact_one(r, xt, (const char *)x + (size_t)start * ty_get(xt)->size, len, (char *)e->want + (size_t)b * psize,
                  &e->nan_ok[b]);
    }
    unsigned char all[8] = {0}, nan = 0;
    exact_one(r, xt, x, n, all, &nan);
    e->total = ty_value(e->type, all);
}

void red_exact_free(struct red_exact *e)
{
    arena_free(e->want);
    arena_free(e->nan_ok);
    memset(e, 0, sizeof *e);
}

/* One bad output: its class, heat and, for the first, its values as the type writes them. */
static void exact_bad(const struct red_exact *e, long b, const void *got, const void *want, struct cmp_result *cmp)
{
    const struct ty_info *t = ty_get(e->type);
    unsigned char level = 250;
    if (ty_bits(e->type, got) == t->poison)
        cmp->unwritten++, cmp->classes |= CLS_UNWRITTEN, level = CMP_HEAT_UNWRITTEN;
    else if (ty_isnan(e->type, got) || ty_isnan(e->type, want) || ty_isinf(e->type, got) || ty_isinf(e->type, want))
        cmp->nan_mismatch++, cmp->nan_other += ty_isnan(e->type, got), cmp->classes |= CLS_NAN, level = CMP_HEAT_NAN;
    else
        cmp->classes |= CLS_WRONG, cmp->max_ratio = INFINITY;
    long cell = b * (CMP_HEAT * CMP_HEAT) / e->outputs;
    if (level > cmp->heat[cell])
        cmp->heat[cell] = level;
    if (cmp->bad++)
        return;
    char g[48], w[48];
    ty_format(e->type, got, g, sizeof g);
    ty_format(e->type, want, w, sizeof w);
    cmp->first_i = b, cmp->first_j = -1;
    cmp->first_expected = ty_value(e->type, want);
    cmp->first_got = (float)ty_value(e->type, got);
    txt_printf(cmp->first_values, sizeof cmp->first_values, "expected %s got %s (%s)", w, g, t->name);
}

void red_exact_compare(const struct red_exact *e, const void *got, struct cmp_result *cmp)
{
    size_t size = ty_get(e->type)->size;
    int wraps = !ty_get(e->type)->is_float;
    cmp->elements = e->outputs;
    cmp->threshold = 1; /* ratios are 0 (equal) or infinite: the bound is exactness */
    cmp->no_total = e->combine != RED_SUM;
    unsigned char wrapped[8] = {0};
    double total = 0;
    for (long b = 0; b < e->outputs; b++) {
        const void *g = (const char *)got + (size_t)b * size, *w = (const char *)e->want + (size_t)b * size;
        ty_store_bits(e->type, wrapped, ty_bits(e->type, wrapped) + ty_bits(e->type, g));
        total += ty_value(e->type, g);
        uint64_t ulp = ty_ulp(e->type, g, w);
        if (ulp == 0 || (e->nan_ok[b] && ty_isnan(e->type, g)))
            continue;
        if (ulp != UINT64_MAX && ulp > cmp->max_ulp && ty_bits(e->type, g) != ty_get(e->type)->poison)
            cmp->max_ulp = ulp;
        exact_bad(e, b, g, w, cmp);
    }
    /* An integer total wraps as the partials do: the sum of the partials modulo 2^32. */
    double diff = fabs((wraps ? ty_value(e->type, wrapped) : total) - e->total);
    cmp->total_rel_err = cmp->no_total ? 0 : e->total != 0 ? diff / fabs(e->total) : diff;
}
