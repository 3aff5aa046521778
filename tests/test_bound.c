/* SPDX-License-Identifier: MIT */
/* test_bound.c: the error bound (compare.c) proved both ways on the harness's own generators
 * (gen_fill), references (ref_*_compute) and comparisons (cmp_*): correct fp32 summation
 * orders stay within a quarter of the threshold on every distribution and length; planted
 * bugs FAIL at every length the catalogues use (shapes clipped for speed); the overflow and
 * underflow rules (the threshold's own numbers are test_compare.c's). Prints both tables.
 * Runs from the repository root (cases/nightly.cases). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "gen.h"
#include "guard.h"
#include "op_fixture.h"
#include "sums.h"
#include "tutil.h"

/* One problem: outputs o = 0..n_out-1, each the sum over len(o) terms a_o[k] * b_o[k]. */
struct prob {
    int gemm;
    long M, N, K, n, chunk, n_out;
    float *A, *Bt, *x, *ones; /* Bt: B transposed, so a column is contiguous */
    struct ref_sgemm sg;
    struct ref_reduce rd;
    int exact_case; /* what run.c passes: the distribution promises exactness */
};

static void prob_gemm(struct prob *p, const struct hb_case *c)
{
    memset(p, 0, sizeof *p);
    p->gemm = 1, p->M = T_SIZE(c, "M"), p->N = T_SIZE(c, "N"), p->K = T_SIZE(c, "K"), p->n_out = p->M * p->N;
    size_t mk = (size_t)p->M * p->K, kn = (size_t)p->K * p->N;
    float *B = calloc(kn + 1, sizeof *B);
    p->A = calloc(mk + 1, sizeof *p->A), p->Bt = calloc(kn + 1, sizeof *p->Bt);
    ck_assert(B && p->A && p->Bt);
    gen_fill_products(p->A, mk, c, p->K, p->N, 0);
    gen_fill_products(B, kn, c, p->K, p->N, 1);
    for (long k = 0; k < p->K; k++)
        for (long j = 0; j < p->N; j++)
            p->Bt[j * p->K + k] = B[k * p->N + j];
    ref_sgemm_compute(&p->sg, p->A, B, p->M, p->N, p->K);
    free(B);
    p->exact_case = c->dist == DIST_EXACT;
}

static void prob_reduce(struct prob *p, const struct hb_case *c, long chunk)
{
    memset(p, 0, sizeof *p);
    p->n = T_SIZE(c, "n"), p->chunk = chunk, p->n_out = (p->n + chunk - 1) / chunk;
    p->x = calloc((size_t)p->n + 1, sizeof *p->x), p->ones = calloc((size_t)chunk, sizeof *p->ones);
    ck_assert(p->x && p->ones);
    for (long i = 0; i < chunk; i++)
        p->ones[i] = 1;
    gen_fill(p->x, (size_t)p->n, c, chunk < p->n ? chunk : p->n, 0); /* as run.c */
    ref_reduce_compute(&p->rd, p->x, p->n, chunk);
    p->exact_case = c->dist == DIST_EXACT;
}

static void prob_free(struct prob *p)
{
    free(p->A), free(p->Bt), free(p->x), free(p->ones);
    if (p->gemm)
        ref_sgemm_free(&p->sg);
    else
        ref_reduce_free(&p->rd);
}

static long out_len(const struct prob *p, long o)
{
    return p->gemm ? p->K : (o + 1) * p->chunk <= p->n ? p->chunk : p->n - o * p->chunk;
}

static const float *out_a(const struct prob *p, long o)
{
    return p->gemm ? p->A + (o / p->N) * p->K : p->x + o * p->chunk;
}

static const float *out_b(const struct prob *p, long o) { return p->gemm ? p->Bt + (o % p->N) * p->K : p->ones; }

static void compute(const struct prob *p, sum_fn f, long arg, float *got)
{
    for (long o = 0; o < p->n_out; o++)
        got[o] = f(out_a(p, o), out_b(p, o), out_len(p, o), arg + o);
}

static void judge(const struct prob *p, const float *got, struct cmp_result *r)
{
    cmp_init(r);
    if (p->gemm)
        cmp_sgemm(&p->sg, got, p->exact_case, r);
    else
        cmp_reduce(&p->rd, got, p->exact_case, r);
}

/* compare.c's SUSPECT band ends at 4 thresholds: past it is FAIL. */
#define SUSPECT_AT 4.0

/* The case's margin: worst ratio as a fraction of its threshold. */
static double margin(const struct cmp_result *r) { return r->threshold > 0 ? r->max_ratio / r->threshold : 0; }

/* ---------- correct orders ---------- */

struct order {
    const char *name;
    sum_fn f;
    long arg;
};
static const struct order orders[] = {
    {"sequential", s_seq, 0},       {"fmaf", s_fma, 0},
    {"pairwise", s_pairwise, 0},    {"split-K 2", s_splitk, 2},
    {"split-K 4", s_splitk, 4},     {"split-K 8", s_splitk, 8},
    {"split-K 16", s_splitk, 16},   {"split-K 32", s_splitk, 32},
    {"split-K 64", s_splitk, 64},   {"Kahan", s_kahan, 0},
    {"8x8 tile, BK=8", s_tile8, 0}, {"atomics, random", s_atomic, 1},
    {"flush to zero", s_ftz, 0},    {"256-thread tree", s_tree256, 0},
};
#define N_ORDERS (long)(sizeof orders / sizeof orders[0])
static const long lengths[] = {1, 3, 17, 255, 4097, 65537, 262145};
#define N_LENGTHS 7
static const enum case_dist dists[] = {DIST_EXACT, DIST_UNIFORM, DIST_CANCEL, DIST_SPECIAL, DIST_WIDEINT};
#define N_DISTS 5

/* Outputs per length: about 2^22 terms in all, 4..1024 outputs. */
static long outputs_for(long len)
{
    long n = (1L << 22) / len;
    return n < 4 ? 4 : n > 1024 ? 1024 : n;
}

static void correct_orders(enum hb_op op)
{
    double worst = 0;
    printf("\n%s: correct orders, worst |error| as a fraction of the threshold (must be <= 0.25)\n", op_name(op));
    for (int d = 0; d < N_DISTS; d++) {
        printf("%-8s %-16s", case_dist_name(dists[d]), "order \\ length");
        for (int l = 0; l < N_LENGTHS; l++)
            printf(" %8ld", lengths[l]);
        printf("\n");
        double cell[N_ORDERS][N_LENGTHS];
        for (int l = 0; l < N_LENGTHS; l++) {
            long len = lengths[l], outs = outputs_for(len);
            struct hb_case c = {.op = op,
                                .dist = dists[d],
                                .seed = 1000u + (uint64_t)len,
                                .specials = SPECIAL_NEGZERO | SPECIAL_SUBNORMAL};
            long M = outs >= 32 ? 32 : outs / 2;
            T_SET(&c, "M", M), T_SET(&c, "N", outs / M), T_SET(&c, "K", len), T_SET(&c, "n", outs * len);
            struct prob p;
            if (op == OP_SGEMM)
                prob_gemm(&p, &c);
            else
                prob_reduce(&p, &c, len);
            float *got = calloc((size_t)p.n_out, sizeof *got);
            ck_assert_ptr_nonnull(got);
            for (long o = 0; o < N_ORDERS; o++) {
                struct cmp_result r;
                compute(&p, orders[o].f, orders[o].arg, got);
                judge(&p, got, &r);
                ck_assert_msg(!r.classes && !r.suspect, "%s %s length %ld: classes %u suspect %d", orders[o].name,
                              case_dist_name(dists[d]), len, r.classes, r.suspect);
                cell[o][l] = margin(&r);
                worst = cell[o][l] > worst ? cell[o][l] : worst;
            }
            free(got);
            prob_free(&p);
        }
        for (long o = 0; o < N_ORDERS; o++) {
            printf("%-8s %-16s", "", orders[o].name);
            for (int l = 0; l < N_LENGTHS; l++)
                printf(" %8.4f", cell[o][l]);
            printf("\n");
        }
    }
    printf("%s: worst of all %.4f\n", op_name(op), worst);
    fflush(stdout);
    ck_assert_double_le(worst, 0.25);
}

START_TEST(correct_orders_stay_within_a_quarter_sgemm) { correct_orders(OP_SGEMM); }
END_TEST

START_TEST(correct_orders_stay_within_a_quarter_reduce) { correct_orders(OP_REDUCE); }
END_TEST

/* ---------- planted bugs ---------- */

enum bug_kind { BUG_SUM, BUG_SIGN, BUG_UNWRITTEN };
struct bug {
    const char *name;
    enum bug_kind kind;
    sum_fn f;
    int gemm_only;
};
static const struct bug bugs[] = {
    {"dropped", BUG_SUM, b_dropped, 0},   {"doubled", BUG_SUM, b_doubled, 0},     {"stale", BUG_SUM, b_stale, 1},
    {"fp16 acc", BUG_SUM, b_half_acc, 0}, {"bf16 in", BUG_SUM, b_bf16, 0},        {"TF32 in", BUG_SUM, b_tf32, 1},
    {"sign flip", BUG_SIGN, s_fma, 0},    {"unwritten", BUG_UNWRITTEN, s_fma, 0},
};
#define N_BUGS (int)(sizeof bugs / sizeof bugs[0])

/* Flips the sign of one input element that matters to output 0: the first a[k], k >= len/2,
 * whose term is nonzero. Returns 0 where there is none. */
static int flip_one(struct prob *p)
{
    if (!p->n_out)
        return 0;
    float *a = p->gemm ? p->A : p->x;
    const float *b = out_b(p, 0);
    long len = out_len(p, 0);
    for (long k = len / 2; k < len; k++)
        if (a[k] != 0 && b[k] != 0) {
            a[k] = -a[k];
            return 1;
        }
    return 0;
}

/* Runs one bug on one problem: -1 where it leaves every output bit as the correct fmaf order
 * has it (nothing to catch), else its margin; *failed says whether the verdict is FAIL. */
static double plant(struct prob *p, const struct bug *bug, int *failed)
{
    float *good = calloc((size_t)p->n_out + 1, sizeof *good), *got = calloc((size_t)p->n_out + 1, sizeof *got);
    ck_assert(good && got);
    compute(p, s_fma, 0, good);
    if (bug->kind == BUG_SIGN) {
        if (flip_one(p))
            compute(p, s_fma, 0, got);
        flip_one(p); /* back: the first nonzero k >= len/2 is the same element */
    } else
        compute(p, bug->f, 0, got);
    if (bug->kind == BUG_UNWRITTEN && p->n_out) {
        uint32_t poison = GRD_POISON_BITS;
        memcpy(&got[0], &poison, sizeof poison);
    }
    double m = -1;
    *failed = 0;
    if (memcmp(good, got, (size_t)p->n_out * sizeof *got)) {
        struct cmp_result r;
        judge(p, got, &r);
        *failed = (r.classes & (CLS_WRONG | CLS_NAN | CLS_UNWRITTEN)) != 0;
        m = r.unwritten || r.nan_mismatch ? INFINITY : margin(&r);
    }
    free(good), free(got);
    return m;
}

/* Catalogue shapes clipped to about 2^21 terms in all; long sums keep at least 1 x 1. */
static void clip(struct hb_case *c)
{
    if (T_GEMM(c)) {
        long K = T_SIZE(c, "K"), cap = (long)sqrt((double)(1L << 21) / (double)(K > 0 ? K : 1));
        cap = cap < 2 ? 2 : cap > 32 ? 32 : cap;
        T_SET(c, "M", T_SIZE(c, "M") < cap ? T_SIZE(c, "M") : cap);
        T_SET(c, "N", T_SIZE(c, "N") < cap ? T_SIZE(c, "N") : cap);
        c->op = OP_SGEMM;
    } else if (T_SIZE(c, "n") > 8192)
        T_SET(c, "n", 8192 + T_SIZE(c, "n") % 1024); /* keeps the short last block */
}

/* Per length: the best margin of each bug over the cases of that length (all; uniform ones
 * of more than one output): the bug is caught at that length when it is past 4 (FAIL).
 * -1: it never shows. A single output can be unlucky: an fp16 accumulator's rounding errors
 * cancel in about 1 short block in 15, and one small lost term is small. */
struct row {
    long len;
    double best[2][N_BUGS]; /* -2: no such case */
};

static struct row *row_for(struct row *rows, int *n_rows, long len)
{
    int r = 0;
    while (r < *n_rows && rows[r].len > len)
        r++;
    if (r == *n_rows || rows[r].len != len) {
        ck_assert_int_lt(*n_rows, 64);
        memmove(rows + r + 1, rows + r, (size_t)(*n_rows - r) * sizeof *rows);
        rows[r].len = len;
        for (int b = 0; b < 2 * N_BUGS; b++)
            rows[r].best[b / N_BUGS][b % N_BUGS] = -2; /* no case */
        (*n_rows)++;
    }
    return &rows[r];
}

static int print_rows(const struct row *rows, int n_rows, int gemm, int uniform)
{
    int missed = 0;
    if (uniform)
        printf("uniform cases of more than one output (TF32 past 2^14 terms: caught by wideint)\n");
    printf("%8s", gemm ? "K" : "n");
    for (int b = 0; b < N_BUGS; b++)
        if (gemm || !bugs[b].gemm_only)
            printf(" %10s", bugs[b].name);
    printf("\n");
    for (int r = 0; r < n_rows; r++) {
        int any = 0;
        for (int b = 0; b < N_BUGS; b++)
            any |= rows[r].best[uniform][b] > -2;
        if (!any)
            continue;
        printf("%8ld", rows[r].len);
        for (int b = 0; b < N_BUGS; b++) {
            double m = rows[r].best[uniform][b];
            if (!gemm && bugs[b].gemm_only)
                continue;
            if (m < 0)
                printf(" %10s", m < -1 ? "" : "-");
            else
                printf(" %9.3g%s", m, m > SUSPECT_AT ? " " : "!");
            /* Past 2^14 terms, TF32's rounding (2^-11, a random walk over K terms) sinks
             * below sblat3's 16 on uniform data: the wideint cases catch it there. */
            int excused = uniform && !strcmp(bugs[b].name, "TF32 in") && rows[r].len > (1L << 14);
            missed += m >= 0 && m <= SUSPECT_AT && !excused;
        }
        printf("\n");
    }
    return missed;
}

static void plant_catalogue(int gemm)
{
    struct case_set set = {0};
    struct hb_err err;
    ck_assert_msg(!case_parse_file("cases/nightly.cases", &set, &err), "%s", err.msg);
    struct row rows[64];
    int n_rows = 0, n_seen = 0;
    long seen[512][4];
    for (int i = 0; i < set.n; i++) {
        struct hb_case c = set.c[i];
        if (T_GEMM(&c) != gemm)
            continue;
        clip(&c);
        long key[4] = {gemm ? T_SIZE(&c, "K") : T_SIZE(&c, "n"), c.dist, T_SIZE(&c, "M"), T_SIZE(&c, "N")}, dup = 0;
        for (int s = 0; s < n_seen; s++)
            dup |= !memcmp(seen[s], key, sizeof key);
        if (dup || n_seen == 512)
            continue;
        memcpy(seen[n_seen++], key, sizeof key);
        struct prob p;
        if (gemm)
            prob_gemm(&p, &c);
        else
            prob_reduce(&p, &c, 1024);
        struct row *row = row_for(rows, &n_rows, key[0]);
        for (int b = 0; b < N_BUGS; b++) {
            if (bugs[b].gemm_only && !gemm)
                continue;
            int failed;
            double m = plant(&p, &bugs[b], &failed);
            ck_assert(m < 0 || failed == (m > SUSPECT_AT));
            if (m >= 0 && !failed)
                printf("not failed on this case alone: %s on %s (run at %ld x %ld, %ld outputs): margin %.3g\n",
                       bugs[b].name, c.name, gemm ? key[2] : key[0], gemm ? key[3] : 1L, p.n_out, m);
            for (int u = 0; u < 2; u++) {
                int counts = !u || (c.dist == DIST_UNIFORM && p.n_out > 1);
                if (counts && (m > row->best[u][b] || row->best[u][b] < -1))
                    row->best[u][b] = m;
            }
        }
        prob_free(&p);
    }
    printf("\n%s: planted bugs on the catalogue cases (cases/nightly.cases and its includes, shapes\n"
           "clipped): per length, the best margin over its cases (worst ratio / threshold; FAIL is\n"
           "past %g; ! marks a length where it is not caught; inf: NaN, unwritten or an exact\n"
           "mismatch; -: the bug changes no bit there)\n",
           gemm ? "sgemm" : "reduce", SUSPECT_AT);
    int missed = print_rows(rows, n_rows, gemm, 0) + print_rows(rows, n_rows, gemm, 1);
    fflush(stdout);
    case_set_free(&set);
    ck_assert_int_eq(missed, 0);
}

START_TEST(planted_bugs_fail_on_every_sgemm_case) { plant_catalogue(1); }
END_TEST

START_TEST(planted_bugs_fail_on_every_reduce_case) { plant_catalogue(0); }
END_TEST

/* ---------- overflow and underflow ---------- */

static struct cmp_result judge_one(const float *a, const float *b, long K, float got)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, a, b, 1, 1, K);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, &got, 0, &c);
    ref_sgemm_free(&r);
    return c;
}

START_TEST(truth_from_the_rounding_midpoint_up_is_inf)
{
    /* FLT_MAX + 2^103 = 2^128 - 2^103: the midpoint, which rounds (to even) to Inf. */
    const float a[2] = {FLT_MAX, 0x1p103f}, b[2] = {1, 1};
    ck_assert_uint_eq(judge_one(a, b, 2, INFINITY).classes, 0);
    /* FLT_MAX is 2^103 off: a quarter of eps * gauge, inside the bound. */
    ck_assert_uint_eq(judge_one(a, b, 2, FLT_MAX).classes, 0);
    ck_assert_uint_eq(judge_one(a, b, 2, 1e38f).classes, CLS_NAN);
    ck_assert_uint_eq(judge_one(a, b, 2, -INFINITY).classes, CLS_NAN);
}
END_TEST

START_TEST(intermediate_overflow_is_suspect_not_a_failure)
{
    /* 6e38 - 6e38 + 1: every fp32 order overflows a product, the truth is 1. */
    const float a[3] = {3e38f, -3e38f, 1}, b[3] = {2, 2, 1};
    const float outs[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        struct cmp_result c = judge_one(a, b, 3, outs[i]);
        ck_assert_uint_eq(c.classes, 0);
        ck_assert_int_eq(c.suspect, 1);
        ck_assert_int_eq(c.overflowed, 1);
        ck_assert_int_eq(c.bad, 1);
    }
    ck_assert_int_eq(judge_one(a, b, 3, 1.0f).suspect, 0);
    /* Only positive terms overflow here: NaN or -Inf cannot come from a correct order. */
    const float p[2] = {3e38f, 1}, q[2] = {2, 1};
    ck_assert_uint_eq(judge_one(p, q, 2, NAN).classes, CLS_NAN);
    ck_assert_uint_eq(judge_one(p, q, 2, -INFINITY).classes, CLS_NAN);
    ck_assert_uint_eq(judge_one(p, q, 2, INFINITY).classes, 0);
}
END_TEST

START_TEST(reduce_partial_overflow_is_suspect)
{
    const float x[3] = {3e38f, 3e38f, -3e38f}; /* 3e38, but 3e38 + 3e38 overflows first */
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 3, 3);
    float got = INFINITY;
    struct cmp_result c;
    cmp_init(&c);
    cmp_reduce(&r, &got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.overflowed, 1);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(a_lost_term_of_2_to_the_minus_122_fails_on_the_flt_min_grid)
{
    /* 16 products of +-2^-122: every partial sum is a multiple of FLT_MIN, so no flushing
     * allowance applies and dropping one term is caught (the old 2 K FLT_MIN hid it). */
    float a[16], b[16], off[16];
    for (int k = 0; k < 16; k++)
        a[k] = (k % 3 ? 1 : -1) * 0x1p-61f, b[k] = 0x1p-61f, off[k] = a[k] * (1 + 0x1p-20f);
    float dropped = s_fma(a, b, 15, 0);
    ck_assert_uint_eq(judge_one(a, b, 16, dropped).classes, CLS_WRONG);
    ck_assert_uint_eq(judge_one(a, b, 16, s_fma(a, b, 16, 0)).classes, 0);
    /* Off the grid a flushing device may lose FLT_MIN per product and per addition. */
    ck_assert_uint_eq(judge_one(off, b, 16, s_ftz(off, b, 16, 0)).classes, 0);
    ck_assert_uint_eq(judge_one(off, b, 16, s_fma(off, b, 15, 0)).classes, 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("bound");
    TCase *t = tcase_create("tables");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, correct_orders_stay_within_a_quarter_sgemm);
    tcase_add_test(t, correct_orders_stay_within_a_quarter_reduce);
    tcase_add_test(t, planted_bugs_fail_on_every_sgemm_case);
    tcase_add_test(t, planted_bugs_fail_on_every_reduce_case);
    suite_add_tcase(s, t);
    TCase *o = tcase_create("rule");
    tcase_add_test(o, truth_from_the_rounding_midpoint_up_is_inf);
    tcase_add_test(o, intermediate_overflow_is_suspect_not_a_failure);
    tcase_add_test(o, reduce_partial_overflow_is_suspect);
    tcase_add_test(o, a_lost_term_of_2_to_the_minus_122_fails_on_the_flt_min_grid);
    suite_add_tcase(s, o);
    return s;
}

int main(void) { return t_run(suite()); }
