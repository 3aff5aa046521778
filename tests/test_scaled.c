/* SPDX-License-Identifier: MIT */
/* test_scaled.c: the BLAS form C = alpha A B + beta C (issue 10): its references (ref.c: sblat3's
 * gauge, one more term, exactness only for powers of two), the comparison of an output that
 * started as the given C (compare.c: bits left as given are unwritten), and a case's data as
 * the sgemm op lays it out per kernel (op_gemm*.c: layouts, leading dimensions, padding, and
 * exact cases that stay exact with the default scalars). */
#include <math.h>
#include <string.h>

#include "case.h"
#include "compare.h"
#include "manifest.h"
#include "op_fixture.h"
#include "op_gemm.h"
#include "ref.h"
#include "tutil.h"

/* A = [1 -2 3; -4 5 -6], B = [7 8; 9 10; 11 12]: A B = [22 24; -49 -54]. */
static const float A[6] = {1, -2, 3, -4, 5, -6};
static const float B[6] = {7, 8, 9, 10, 11, 12};
static const float C0[4] = {1, 2, 3, 4};

START_TEST(scaled_reference_is_alpha_ab_plus_beta_c_with_sblat3s_gauge)
{
    struct ref_sgemm r;
    ref_sgemm_compute_scaled(&r, A, B, C0, 0.5f, -2.0f, 2, 2, 3);
    const double want[4] = {9, 8, -30.5, -35}, gauge[4] = {31, 36, 75.5, 85};
    ck_assert_int_eq(r.terms, 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq(r.c64[i], want[i]);
        ck_assert_float_eq(r.c32[i], (float)want[i]);
        ck_assert_double_eq(r.gauge[i], gauge[i]);
        ck_assert(r.exact[i]);
    }
    /* spread: the root of the summed squared terms, beta c0 among them */
    double t0 = 0.5 * 7, t1 = 0.5 * -2 * 9, t2 = 0.5 * 3 * 11, t3 = -2.0 * 1;
    ck_assert_double_eq_tol(r.spread[0], sqrt(t0 * t0 + t1 * t1 + t2 * t2 + t3 * t3), 1e-12);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(exactness_is_claimed_only_for_powers_of_two)
{
    struct ref_sgemm r;
    ref_sgemm_compute_scaled(&r, A, B, C0, 0.7f, -2.0f, 2, 2, 3);
    for (int i = 0; i < 4; i++)
        ck_assert(!r.exact[i]);
    ck_assert_double_eq(r.c64[0], (double)0.7f * 22 - 2);
    ref_sgemm_free(&r);
    ref_sgemm_compute_scaled(&r, A, B, C0, 1.0f, 1.5f, 2, 2, 3);
    ck_assert(!r.exact[0]);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(beta_zero_adds_no_term_and_the_plain_product_is_unchanged)
{
    struct ref_sgemm r, plain;
    ref_sgemm_compute_scaled(&r, A, B, C0, 2.0f, 0.0f, 2, 2, 3);
    ck_assert_int_eq(r.terms, 3);
    ck_assert_double_eq(r.c64[2], -98);
    ck_assert_double_eq(r.gauge[2], 278);
    ref_sgemm_free(&r);
    /* alpha 1, beta 0: exactly what ref_sgemm_compute gives, bit for bit */
    ref_sgemm_compute(&plain, A, B, 2, 2, 3);
    ref_sgemm_compute_scaled(&r, A, B, C0, 1.0f, 0.0f, 2, 2, 3);
    ck_assert_int_eq(memcmp(plain.c64, r.c64, 4 * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(plain.gauge, r.gauge, 4 * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(plain.spread, r.spread, 4 * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(plain.c32, r.c32, 4 * sizeof(float)), 0);
    ck_assert_int_eq(plain.terms, 3);
    ref_sgemm_free(&plain), ref_sgemm_free(&r);
}
END_TEST

START_TEST(bits_left_as_given_are_unwritten_not_wrong)
{
    struct ref_sgemm r;
    ref_sgemm_compute_scaled(&r, A, B, C0, 0.5f, -2.0f, 2, 2, 3);
    float got[4] = {9, 8, -30.5f, -35};
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm_given(&r, C0, got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    got[1] = C0[1];      /* never written */
    got[3] = 0.5f * -54; /* written without beta C: wrong */
    cmp_init(&c);
    cmp_sgemm_given(&r, C0, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_UNWRITTEN | CLS_WRONG);
    ck_assert_int_eq(c.unwritten, 1);
    ck_assert_int_eq(c.bad, 2);
    ck_assert_int_eq(c.first_i, 0);
    ck_assert_int_eq(c.first_j, 1);
    /* Without a given C the same output is only wrong. */
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_WRONG);
    ref_sgemm_free(&r);
}
END_TEST

/* A kernel of op `op` declaring `args`, for the op's prepare and layout. */
static struct kern_desc *kernel(struct kern_set *set, enum hb_op op, const char *args, int col)
{
    struct kern_desc *k = kern_set_push(set);
    k->op = op, k->col_major = col;
    char words[128];
    snprintf(words, sizeof words, "%s", args);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        int i = op_param_find(op, w);
        ck_assert_int_ge(i, 0);
        k->args[k->n_args++] = (struct kern_arg){(unsigned char)i, op_get(op)->params[i].kind};
    }
    return k;
}

static struct hb_case gemm_case(const char *line)
{
    struct case_set set = {0};
    struct hb_err err = {{0}};
    char text[256];
    snprintf(text, sizeof text, "%s", line);
    ck_assert_msg(case_parse_line(text, "t.cases", 1, &set, &err) == 0, "%s", err.msg);
    struct hb_case c = set.c[0];
    case_set_free(&set);
    return c;
}

START_TEST(a_column_major_kernel_gets_its_own_image_strides_and_c)
{
    struct hb_case c = gemm_case("sgemm_strided s M=3 N=2 K=4 lda=6 ldb=3 ldc=5 dist=exact");
    struct kern_set ks = {0};
    struct kern_desc *col = kernel(&ks, OP_SGEMM_STRIDED, "M N K alpha A lda B ldb beta C ldc", 1);
    kernel(&ks, OP_SGEMM_STRIDED, "A B C M N K lda ldb ldc", 0);
    struct case_data d = {.c = &c};
    op_prepare(&d, &ks, 1);
    const struct gemm_data *g = d.ref;
    struct op_layout l;
    op_sgemm_strided.layout(&d, col, &l);
    /* The row-major padding carried over to columns: lda = M + (6 - K), ldb = K + 1, ldc = M + 3. */
    ck_assert_int_eq(l.ints[3], 5);
    ck_assert_int_eq(l.ints[4], 5);
    ck_assert_int_eq(l.ints[5], 6);
    ck_assert_float_eq(l.floats[0], GEMM_ALPHA);
    ck_assert_float_eq(l.floats[1], GEMM_BETA);
    ck_assert_uint_eq(l.bytes[0], 4 * 5 * sizeof(float)); /* K columns of lda */
    ck_assert_uint_eq(l.bytes[2], 2 * 6 * sizeof(float)); /* N columns of ldc */
    const float *a = l.data[0], *c0 = l.data[2];
    for (long i = 0; i < 3; i++)
        for (long k = 0; k < 4; k++)
            ck_assert_float_eq(a[i + k * 5], g->a[i * 4 + k]);
    ck_assert_float_eq(a[3], GEMM_ROGUE_VALUE);
    ck_assert_uint_eq(l.role[2], OP_ROLE_OUT);
    ck_assert_ptr_nonnull(c0);
    ck_assert_float_eq(c0[1 + 1 * 6], g->c[1 * 2 + 1]);
    ck_assert_float_eq(c0[4], GEMM_ROGUE_VALUE);
    /* The kernel without scalars: row-major, the case's strides, a poisoned C. */
    op_sgemm_strided.layout(&d, &ks.k[1], &l);
    ck_assert_int_eq(l.ints[3], 6);
    ck_assert_ptr_null(l.data[2]);
    ck_assert_float_eq(l.floats[0], 1.0f);
    ck_assert_float_eq(l.floats[1], 0.0f);
    op_release(&d);
    kern_set_free(&ks);
}
END_TEST

/* Every exact and wideint sgemm case of the quick tier (and C += A B) stays exact in every
 * element with its alpha and beta (the defaults, or the case's): the given C and the scalars keep
 * all terms on a grid. */
START_TEST(exact_cases_stay_exact_with_the_default_scalars)
{
    struct case_set cs = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(case_parse_file(HB_TEST_ROOT "/tests/data/ukern/scalars.cases", &cs, &err) == 0, "%s", err.msg);
    struct kern_set ks = {0};
    kernel(&ks, OP_SGEMM, "M N K alpha A B beta C", 0);
    kernel(&ks, OP_SGEMM_STRIDED, "M N K alpha A lda B ldb beta C ldc", 0);
    int checked = 0;
    for (int i = 0; i < cs.n; i++) {
        struct hb_case *c = &cs.c[i];
        if ((c->op != OP_SGEMM && c->op != OP_SGEMM_STRIDED) || (c->dist != DIST_EXACT && c->dist != DIST_WIDEINT))
            continue;
        struct case_data d = {.c = c};
        op_prepare(&d, &ks, 1);
        float alpha = T_SCALAR(c, "alpha"), beta = T_SCALAR(c, "beta");
        const struct ref_sgemm *r = gemm_ref(d.ref, alpha, beta);
        ck_assert_float_eq(r->alpha, alpha);
        ck_assert_int_eq(r->terms, T_SIZE(c, "K") + (beta != 0));
        for (long e = 0; e < T_SIZE(c, "M") * T_SIZE(c, "N"); e++)
            ck_assert_msg(r->exact[e], "%s: element %ld is not exact", c->name, e);
        op_release(&d);
        checked++;
    }
    ck_assert_int_ge(checked, 10);
    kern_set_free(&ks);
    case_set_free(&cs);
}
END_TEST

Suite *scaled_suite(void)
{
    Suite *s = suite_create("scaled");
    TCase *r = tcase_create("reference");
    tcase_add_test(r, scaled_reference_is_alpha_ab_plus_beta_c_with_sblat3s_gauge);
    tcase_add_test(r, exactness_is_claimed_only_for_powers_of_two);
    tcase_add_test(r, beta_zero_adds_no_term_and_the_plain_product_is_unchanged);
    tcase_add_test(r, bits_left_as_given_are_unwritten_not_wrong);
    suite_add_tcase(s, r);
    TCase *o = tcase_create("op");
    tcase_set_timeout(o, 120);
    tcase_add_test(o, a_column_major_kernel_gets_its_own_image_strides_and_c);
    tcase_add_test(o, exact_cases_stay_exact_with_the_default_scalars);
    suite_add_tcase(s, o);
    return s;
}

int main(void) { return t_run(scaled_suite()); }
