/* SPDX-License-Identifier: MIT */
/* op_gemm_data.c: one sgemm case's data, made once in the parent for every kernel that runs it:
 * A and B from gen.c, the C given to kernels that take beta, each stored the way some kernel
 * reads it (by rows or by columns, with the case's leading dimensions and rogue padding), and a
 * reference per (alpha, beta) a kernel computes with (its arrays where ref_set_keep puts them).
 * It lays out nothing per launch and checks nothing: op_gemm.c does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "gen.h"
#include "op_gemm.h"

/* A case's lda, ldb, ldc are given for storage by rows (>= K, N, N). Stored by columns, each
 * matrix keeps the same padding past its column (>= M, K, M): lda = M + (lda - K), so one case
 * line tests both layouts. sgemm cases have no padding: ld is the row or column length. */
struct gemm_dims gemm_dims_of(const struct case_size *s, int n)
{
    struct gemm_dims m = {case_size_of(s, n, "M"),   case_size_of(s, n, "N"),   case_size_of(s, n, "K"),
                          case_size_of(s, n, "lda"), case_size_of(s, n, "ldb"), case_size_of(s, n, "ldc")};
    return m;
}

void gemm_ld(const struct hb_case *c, int col, long ld[3])
{
    struct gemm_dims m = gemm_dims(c);
    long by_row[3] = {m.K, m.N, m.N}, by_col[3] = {m.M, m.K, m.M}, given[3] = {m.lda, m.ldb, m.ldc};
    for (int i = 0; i < 3; i++)
        ld[i] = (col ? by_col[i] : by_row[i]) + (gemm_strided(c) ? given[i] - by_row[i] : 0);
}

void gemm_scalars(const struct hb_case *c, const struct kern_desc *k, float *alpha, float *beta)
{
    *alpha = kern_takes(k, "alpha") ? c->scalars[GEMM_ALPHA_AT].value : 1.0f;
    *beta = kern_takes(k, "beta") ? c->scalars[GEMM_BETA_AT].value : 0.0f;
}

const struct ref_sgemm *gemm_ref(const struct gemm_data *g, float alpha, float beta)
{
    for (int i = 0; i < g->n_refs; i++)
        if (g->refs[i].alpha == alpha && g->refs[i].beta == beta)
            return &g->refs[i].r;
    return &g->refs[0].r; /* not reached: gemm_prepare made one for each kernel's pair */
}

/* A rows x cols matrix stored with leading dimension ld by rows or by columns, the rogue value
 * in the padding. Stored compactly by rows it is the matrix itself (no copy). */
static float *gemm_image(float *m, long rows, long cols, long ld, int col, size_t *n)
{
    long outer = col ? cols : rows, inner = col ? rows : cols;
    *n = (size_t)outer * (size_t)ld;
    if (!col && ld == cols)
        return m;
    float *out = arena_calloc(*n + 1, sizeof(float));
    for (long o = 0; o < outer; o++)
        for (long i = 0; i < ld; i++)
            out[o * ld + i] = i >= inner ? GEMM_ROGUE_VALUE : col ? m[i * cols + o] : m[o * cols + i];
    return out;
}

/* The C a kernel that takes beta starts from. Drawn like A for uniform and cancel data
 * (special values stay out: a NaN in C would test BLAS's beta = 0 liberty, not arithmetic). On
 * exact data beta c is one more term no larger than a product, on a grid as fine as half a
 * product's: c = m g |alpha / beta|, g the grid of one product (1/4 for exact, j/2 i/2; 1/2 for
 * wideint, odd j/2), m within the case's exact amplitude, so sums stay exact (ref.h checks each).
 * On exact data m is a half-integer: alpha A B then lies on a grid C does not, so a kernel that
 * drops beta C never leaves an output equal to C by chance (which would read as unwritten).
 * With beta = 0, C still holds such finite values: the kernel multiplies them by zero, and an
 * element left as it was is unwritten (compare.h). */
static float *gemm_given(const struct hb_case *c)
{
    struct gemm_dims m = gemm_dims(c);
    float alpha = c->scalars[GEMM_ALPHA_AT].value, beta = c->scalars[GEMM_BETA_AT].value;
    size_t n = (size_t)m.M * (size_t)m.N;
    float *out = arena_calloc(n + 1, sizeof(float));
    struct hb_case as = *c;
    int exact = c->dist == DIST_EXACT || c->dist == DIST_WIDEINT;
    as.dist = exact ? DIST_EXACT : c->dist == DIST_SPECIAL ? DIST_UNIFORM : c->dist;
    gen_fill_products(out, n, &as, m.K, m.N, 2); /* exact: j/2, |j| within the amplitude for K two-factor terms */
    double ratio = (alpha != 0 ? fabs(alpha) : 1.0) / (beta != 0 ? fabs(beta) : 1.0);
    double grid = c->dist == DIST_EXACT ? 0.25 : 0.5;
    double half = c->dist == DIST_EXACT ? 0.5 : 0.0;
    for (size_t i = 0; exact && i < n; i++)
        out[i] = (float)((2.0 * out[i] + half) * grid * ratio);
    return out;
}

/* The (alpha, beta) pairs the case's kernels compute with: the plain product first (the vendor
 * library and every kernel without scalars), then one per other pair. */
static void gemm_pairs(struct gemm_data *g, const struct hb_case *c, const struct kern_set *ks, int *col, int *given)
{
    g->refs[0].alpha = 1.0f, g->refs[0].beta = 0.0f;
    g->n_refs = 1;
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        if (!kern_runs_case(k, c))
            continue;
        *col |= k->col_major;
        *given |= kern_takes(k, "beta");
        float alpha, beta;
        gemm_scalars(c, k, &alpha, &beta);
        int have = 0;
        for (int j = 0; j < g->n_refs; j++)
            have |= g->refs[j].alpha == alpha && g->refs[j].beta == beta;
        if (!have && g->n_refs < GEMM_MAX_REFS)
            g->refs[g->n_refs].alpha = alpha, g->refs[g->n_refs++].beta = beta;
    }
}

void gemm_prepare(struct case_data *d, const struct kern_set *ks)
{
    const struct hb_case *c = d->c;
    struct gemm_data *g = arena_calloc(1, sizeof *g);
    d->ref = g;
    /* The same values whatever the layout: references come from the compact matrices. */
    struct gemm_dims dm = gemm_dims(c);
    size_t n[2] = {(size_t)dm.M * dm.K, (size_t)dm.K * dm.N};
    float **m[2] = {&g->a, &g->b};
    for (int i = 0; i < 2; i++) {
        *m[i] = arena_calloc(n[i] + 1, sizeof(float));
        gen_fill_products(*m[i], n[i], c, dm.K, dm.N, i);
    }
    int col = 0, given = 0;
    gemm_pairs(g, c, ks, &col, &given);
    if (given)
        g->c = gemm_given(c);
    long rows[3] = {dm.M, dm.K, dm.M}, cols[3] = {dm.K, dm.N, dm.N};
    float *src[3] = {g->a, g->b, g->c};
    for (int l = 0; l <= col; l++) {
        long ld[3];
        gemm_ld(c, l, ld);
        for (int i = 0; i < 3; i++)
            if (src[i])
                g->img[l][i] = gemm_image(src[i], rows[i], cols[i], ld[i], l, &g->img_n[l][i]);
    }
}

void gemm_reference(struct case_data *d, const struct kern_set *ks)
{
    (void)ks; /* gemm_prepare listed the (alpha, beta) pairs of its kernels */
    struct gemm_dims m = gemm_dims(d->c);
    struct gemm_data *g = d->ref;
    for (int i = 0; i < g->n_refs; i++) {
        struct gemm_ref *r = &g->refs[i];
        ref_sgemm_compute_scaled(&r->r, g->a, g->b, r->beta != 0 ? g->c : NULL, r->alpha, r->beta, m.M, m.N, m.K);
    }
}

void gemm_release(struct case_data *d)
{
    struct gemm_data *g = d->ref;
    if (!g)
        return;
    for (int i = 0; i < g->n_refs; i++)
        ref_sgemm_free(&g->refs[i].r);
    float *own[3] = {g->a, g->b, g->c};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 3; i++)
            if (g->img[l][i] != own[i])
                arena_free(g->img[l][i]);
    arena_free(g->a), arena_free(g->b), arena_free(g->c);
    arena_free(g);
    d->ref = NULL;
}
