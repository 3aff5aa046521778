/* test_compare.c: the comparison rules (compare.c): ULP distance, the sgemm and reduce
 * checks against hand-built references, and the verdict table (the threshold itself is
 * test_bound.c's). References come from the real ref_*_compute on small matrices; nothing
 * is mocked. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compare.h"
#include "guard.h"
#include "tutil.h"

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

START_TEST(ulp_signed_zeros_are_equal)
{
    ck_assert_uint_eq(cmp_ulp(0.0f, -0.0f), 0);
    ck_assert_uint_eq(cmp_ulp(-0.0f, 0.0f), 0);
}
END_TEST

START_TEST(ulp_two_nans_are_equal_whatever_the_payload)
{
    ck_assert_uint_eq(cmp_ulp(NAN, NAN), 0);
    ck_assert_uint_eq(cmp_ulp(NAN, from_bits(GRD_POISON_BITS)), 0);
    ck_assert_uint_eq(cmp_ulp(-NAN, NAN), 0);
}
END_TEST

START_TEST(ulp_nan_against_a_number_is_max)
{
    ck_assert_uint_eq(cmp_ulp(NAN, 1.0f), UINT64_MAX);
    ck_assert_uint_eq(cmp_ulp(0.0f, NAN), UINT64_MAX);
    ck_assert_uint_eq(cmp_ulp(NAN, INFINITY), UINT64_MAX);
}
END_TEST

START_TEST(ulp_inf_is_one_past_flt_max)
{
    ck_assert_uint_eq(cmp_ulp(INFINITY, FLT_MAX), 1);
    ck_assert_uint_eq(cmp_ulp(-FLT_MAX, -INFINITY), 1);
}
END_TEST

START_TEST(ulp_neighbours_are_one_apart)
{
    float xs[] = {1.0f, -1.0f, 3.5e-20f, 123456.7f, -FLT_MIN};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        ck_assert_uint_eq(cmp_ulp(xs[i], nextafterf(xs[i], INFINITY)), 1);
        ck_assert_uint_eq(cmp_ulp(nextafterf(xs[i], -INFINITY), xs[i]), 1);
    }
    ck_assert_uint_eq(cmp_ulp(1.0f, 2.0f), 1u << 23);
}
END_TEST

START_TEST(ulp_counts_across_zero)
{
    float tiny = 0x1p-149f; /* the smallest subnormal */
    ck_assert_uint_eq(cmp_ulp(tiny, -tiny), 2);
    ck_assert_uint_eq(cmp_ulp(tiny, 0.0f), 1);
    ck_assert_uint_eq(cmp_ulp(-tiny, 0.0f), 1);
    ck_assert_uint_eq(cmp_ulp(1.0f, -1.0f), 2ull * 0x3f800000u);
}
END_TEST

START_TEST(ulp_steps_evenly_through_subnormals)
{
    float tiny = 0x1p-149f;
    ck_assert_uint_eq(cmp_ulp(3 * tiny, tiny), 2);
    ck_assert_uint_eq(cmp_ulp(FLT_MIN, nextafterf(FLT_MIN, 0)), 1);
    /* FLT_MIN is 2^23 steps above zero: every subnormal is one. */
    ck_assert_uint_eq(cmp_ulp(FLT_MIN, 0.0f), 1u << 23);
}
END_TEST

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

static const float X5[5] = {1, 2, 3, 4, 5}; /* chunk 2: partials 3, 7, 5; total 15 */

START_TEST(reduce_right_partials_pass)
{
    struct ref_reduce r;
    ref_reduce_compute(&r, X5, 5, 2);
    float got[3] = {3, 7, 5};
    struct cmp_result c;
    cmp_init(&c);
    cmp_reduce(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, 0);
    ck_assert_int_eq(c.elements, 3);
    ck_assert_int_eq(c.bad, 0);
    ck_assert_double_eq(c.total_rel_err, 0.0);
    /* No error anywhere: the strictest threshold, block {5}: 16 + 2 (5 + 5) / 5. */
    ck_assert_double_eq(c.threshold, 20.0);
    cmp_init(&c);
    cmp_reduce(&r, got, 1, &c);
    ck_assert_uint_eq(c.classes, 0);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(reduce_wrong_partial_is_named_by_block)
{
    struct ref_reduce r;
    ref_reduce_compute(&r, X5, 5, 2);
    float got[3] = {3, 8, 5};
    struct cmp_result c;
    cmp_init(&c);
    cmp_reduce(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_WRONG);
    ck_assert_int_eq(c.bad, 1);
    ck_assert_int_eq(c.first_i, 1);
    ck_assert_int_eq(c.first_j, -1);
    ck_assert_double_eq(c.first_expected, 7.0);
    ck_assert_float_eq(c.first_got, 8.0f);
    ck_assert_double_eq_tol(c.total_rel_err, 1.0 / 15.0, 1e-12);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(reduce_last_short_block_is_checked)
{
    struct ref_reduce r;
    ref_reduce_compute(&r, X5, 5, 2);
    float got[3] = {3, 7, from_bits(GRD_POISON_BITS)};
    struct cmp_result c;
    cmp_init(&c);
    cmp_reduce(&r, got, 0, &c);
    ck_assert_uint_eq(c.classes, CLS_UNWRITTEN);
    ck_assert_int_eq(c.unwritten, 1);
    ck_assert_int_eq(c.first_i, 2);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(reduce_threshold_follows_each_block)
{
    float *x = calloc(10000, sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (int i = 0; i < 10000; i++)
        x[i] = 1.0f;
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 10000, 2500);
    float got[4] = {2500, 2500, 2500, 2500};
    struct cmp_result c;
    cmp_init(&c);
    cmp_reduce(&r, got, 0, &c);
    ck_assert_double_eq(c.threshold, cmp_threshold(2500, 2500, 2500 + 50)); /* 118 */
    ck_assert_uint_eq(c.classes, 0);
    ref_reduce_free(&r);
    free(x);
}
END_TEST

START_TEST(reduce_total_error_is_relative_to_the_true_sum)
{
    const float x[4] = {1, -1, 2, 2}; /* partials 0, 4; total 4 */
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 4, 2);
    float got[2] = {0, 4};
    struct cmp_result c;
    cmp_init(&c);
    cmp_reduce(&r, got, 0, &c);
    ck_assert_double_eq(c.total_rel_err, 0.0);
    got[1] = 5;
    cmp_init(&c);
    cmp_reduce(&r, got, 0, &c);
    ck_assert_double_eq_tol(c.total_rel_err, 0.25, 1e-12);
    ref_reduce_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("compare");
    TCase *ulp = tcase_create("ulp");
    tcase_add_test(ulp, ulp_signed_zeros_are_equal);
    tcase_add_test(ulp, ulp_two_nans_are_equal_whatever_the_payload);
    tcase_add_test(ulp, ulp_nan_against_a_number_is_max);
    tcase_add_test(ulp, ulp_inf_is_one_past_flt_max);
    tcase_add_test(ulp, ulp_neighbours_are_one_apart);
    tcase_add_test(ulp, ulp_counts_across_zero);
    tcase_add_test(ulp, ulp_steps_evenly_through_subnormals);
    suite_add_tcase(s, ulp);
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
    TCase *rd = tcase_create("reduce");
    tcase_add_test(rd, reduce_right_partials_pass);
    tcase_add_test(rd, reduce_wrong_partial_is_named_by_block);
    tcase_add_test(rd, reduce_last_short_block_is_checked);
    tcase_add_test(rd, reduce_threshold_follows_each_block);
    tcase_add_test(rd, reduce_total_error_is_relative_to_the_true_sum);
    suite_add_tcase(s, rd);
    return s;
}

int main(void) { return t_run(suite()); }
