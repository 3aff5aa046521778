/* SPDX-License-Identifier: MIT */
/* test_compare_sgemm.c: the sgemm comparison rules (compare.c) against hand-built
 * references: threshold, grey band and far-off elements, unwritten poison, NaN and Inf
 * classes, exact mode, empty outputs. References come from the real ref_sgemm_compute on
 * small matrices; nothing is mocked. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "compare_fixture.h"
#include "guard.h"
#include "tutil.h"

/* 2x3 times 3x2 of positive non-integers, so the gauge equals |C| and c32 is rounded. */
static const float A23[6] = {0.1f, 0.7f, 1.3f, 2.9f, 0.37f, 5.5f};
static const float B32[6] = {1.1f, 0.3f, 2.2f, 0.05f, 0.9f, 7.7f};

static void small_ref(struct ref_sgemm *r) { ref_sgemm_compute(r, A23, B32, 2, 2, 3); }

/* A float whose error against c64 is `ratio` units of eps * gauge (to within half an ulp). */
static float at_ratio(const struct ref_sgemm *r, int at, double ratio)
{
    return (float)(r->c64[at] + ratio * FLT_EPSILON * r->gauge[at]);
}

START_TEST(sgemm_exact_copy_of_openblas_passes)
{
    struct ref_sgemm r;
    small_ref(&r);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, r.c32, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.suspect, 0);
    ck_assert_int_eq(c.bad, 0);
    ck_assert_int_eq(c.elements, 4);
    ck_assert_uint_eq(c.max_ulp, 0);
    /* Positive data: magnitude = gauge + spread, so 16 + 2 sqrt(3) (1 + spread / gauge). */
    ck_assert_double_gt(c.threshold, 16.0 + 2 * sqrt(3.0));
    ck_assert_double_lt(c.threshold, 16.0 + 4 * sqrt(3.0));
    ck_assert_double_le(c.max_ratio, 1.0);
    ck_assert_int_eq(c.first_i, -1);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_far_off_element_is_wrong_at_its_place)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[1 * 2 + 0] *= 1.001f; /* ~8000 ulps */
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_WRONG);
    ck_assert_int_eq(c.bad, 1);
    ck_assert_int_eq(c.first_i, 1);
    ck_assert_int_eq(c.first_j, 0);
    ck_assert_float_eq(c.first_got, got[2]);
    ck_assert_double_eq(c.first_expected, r.c64[2]);
    ck_assert_uint_gt(c.max_ulp, 1000);
    ck_assert_double_gt(c.max_ratio, 64.0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_counts_every_bad_element_and_reports_the_first)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[3] = -got[3];
    got[1] += 1.0f;
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_int_eq(c.bad, 2);
    ck_assert_int_eq(c.first_i, 0);
    ck_assert_int_eq(c.first_j, 1);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_error_inside_threshold_passes)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[3] = at_ratio(&r, 3, 10.0);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.suspect, 0);
    ck_assert_int_eq(c.bad, 0);
    ck_assert_double_gt(c.max_ratio, 9.0);
    ck_assert_double_lt(c.max_ratio, 11.0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_error_in_grey_band_is_suspect)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[2] = at_ratio(&r, 2, 40.0); /* between 16 and 4 x 16 */
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.suspect, 1);
    ck_assert_int_eq(c.bad, 1);
    ck_assert_int_eq(c.first_i, 1);
    ck_assert_int_eq(c.first_j, 0);
    ck_assert_double_gt(c.max_ratio, 39.0);
    ck_assert_double_lt(c.max_ratio, 41.0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_error_past_four_thresholds_is_wrong_not_suspect)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[0] = at_ratio(&r, 0, 40.0);
    got[1] = at_ratio(&r, 1, 200.0); /* past 4 x (16 + 4 sqrt(3)) */
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_WRONG);
    ck_assert_int_eq(c.suspect, 0);
    ck_assert_int_eq(c.bad, 2);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_poison_counts_as_unwritten)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[1] = from_bits(GRD_POISON_BITS);
    got[3] = from_bits(GRD_POISON_BITS);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_UNWRITTEN);
    ck_assert_int_eq(c.unwritten, 2);
    ck_assert_int_eq(c.nan_mismatch, 0);
    ck_assert_int_eq(c.bad, 2);
    ck_assert_int_eq(c.first_i, 0);
    ck_assert_int_eq(c.first_j, 1);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_nan_where_reference_has_none_is_nan_class)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[2] = NAN;
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_NAN);
    ck_assert_int_eq(c.nan_mismatch, 1);
    ck_assert_int_eq(c.unwritten, 0);
    ck_assert_int_eq(c.first_i, 1);
    ck_assert_int_eq(c.first_j, 0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_inf_where_reference_is_finite_is_nan_class)
{
    struct ref_sgemm r;
    small_ref(&r);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[0] = INFINITY;
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_NAN);
    ck_assert_int_eq(c.nan_mismatch, 1);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_inf_with_the_right_sign_passes)
{
    /* Row 0 of A holds +Inf, row 1 -Inf; B is positive: C row 0 is +Inf, row 1 -Inf. */
    const float A[6] = {INFINITY, 1, 2, 3, -INFINITY, 4};
    const float B[6] = {1, 2, 3, 4, 5, 6};
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 2, 2, 3);
    ck_assert(isinf(r.c64[0]) && r.c64[0] > 0);
    ck_assert(isinf(r.c64[3]) && r.c64[3] < 0);
    float got[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.bad, 0);
    got[3] = INFINITY;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_NAN);
    ck_assert_int_eq(c.first_i, 1);
    ck_assert_int_eq(c.first_j, 1);
    got[3] = NAN;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_NAN);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_finite_truth_beyond_flt_max_expects_inf)
{
    const float A[1] = {3e38f}, B[1] = {2.0f};
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 1, 1, 1);
    float got = INFINITY;
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, &got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    got = FLT_MAX;
    cmp_init(&c);
    cmp_sgemm(&r, &got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_NAN);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_nan_reference_needs_nan)
{
    const float A[2] = {NAN, 1.0f}, B[2] = {1.0f, 1.0f};
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 1, 1, 2);
    float got = NAN;
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, &got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    got = 1.0f;
    cmp_init(&c);
    cmp_sgemm(&r, &got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_NAN);
    ck_assert_int_eq(c.nan_mismatch, 1);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_exact_mode_rejects_one_ulp)
{
    const float A[4] = {0.5f, -1.5f, 2.0f, 3.5f}, B[4] = {1.0f, 2.5f, -0.5f, 4.0f};
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 2, 2, 2);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 1, &c);
    ck_assert_uint_eq(c.classes, 0);
    got[3] = nextafterf(got[3], INFINITY);
    cmp_init(&c);
    cmp_sgemm(&r, got, 1, &c);
    ck_assert_uint_eq(c.classes, CLS_WRONG);
    ck_assert_int_eq(c.bad, 1);
    ck_assert_int_eq(c.first_i, 1);
    ck_assert_int_eq(c.first_j, 1);
    ck_assert_uint_eq(c.max_ulp, 1);
    /* Halves times halves: the reference finds every order exact, so it holds without the flag. */
    ck_assert_int_eq(r.exact[3], 1);
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_WRONG);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_one_ulp_on_inexact_data_is_far_inside_the_bound)
{
    struct ref_sgemm r;
    small_ref(&r);
    ck_assert_int_eq(r.exact[3], 0);
    float got[4];
    memcpy(got, r.c32, sizeof got);
    got[3] = nextafterf(got[3], INFINITY);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.suspect, 0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_empty_output_compares_nothing)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A23, B32, 0, 2, 3);
    struct cmp_result c;
    cmp_init(&c);
    cmp_sgemm(&r, NULL, 0, &c);
    ck_assert_int_eq(c.elements, 0);
    ck_assert_uint_eq(c.classes, 0);
    ref_sgemm_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("compare_sgemm");
    TCase *sg = tcase_create("sgemm");
    tcase_add_test(sg, sgemm_exact_copy_of_openblas_passes);
    tcase_add_test(sg, sgemm_far_off_element_is_wrong_at_its_place);
    tcase_add_test(sg, sgemm_counts_every_bad_element_and_reports_the_first);
    tcase_add_test(sg, sgemm_error_inside_threshold_passes);
    tcase_add_test(sg, sgemm_error_in_grey_band_is_suspect);
    tcase_add_test(sg, sgemm_error_past_four_thresholds_is_wrong_not_suspect);
    tcase_add_test(sg, sgemm_poison_counts_as_unwritten);
    tcase_add_test(sg, sgemm_nan_where_reference_has_none_is_nan_class);
    tcase_add_test(sg, sgemm_inf_where_reference_is_finite_is_nan_class);
    tcase_add_test(sg, sgemm_inf_with_the_right_sign_passes);
    tcase_add_test(sg, sgemm_finite_truth_beyond_flt_max_expects_inf);
    tcase_add_test(sg, sgemm_nan_reference_needs_nan);
    tcase_add_test(sg, sgemm_exact_mode_rejects_one_ulp);
    tcase_add_test(sg, sgemm_one_ulp_on_inexact_data_is_far_inside_the_bound);
    tcase_add_test(sg, sgemm_empty_output_compares_nothing);
    suite_add_tcase(s, sg);
    return s;
}

int main(void) { return t_run(suite()); }
