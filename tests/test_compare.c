/* SPDX-License-Identifier: MIT */
/* test_compare.c: the comparison rules (compare.c): ULP distance, the threshold's numbers and
 * the reduce checks against hand-built references (the sgemm checks are test_compare_sgemm.c's,
 * the bound proved on real sums test_bound.c's). References come from the real
 * ref_reduce_compute on small inputs; nothing is mocked. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "compare.h"
#include "compare_fixture.h"
#include "guard.h"
#include "tutil.h"

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

START_TEST(threshold_is_16_for_short_sums_and_empty_gauges)
{
    ck_assert_double_eq(cmp_threshold(0, 1, 1), 16.0);
    ck_assert_double_eq(cmp_threshold(-5, 1, 1), 16.0);
    ck_assert_double_eq(cmp_threshold(7, 0, 0), 16.0);
    ck_assert_double_eq(cmp_threshold(7, INFINITY, 1), 16.0);
    ck_assert_double_eq(cmp_threshold(7, NAN, 1), 16.0);
}
END_TEST

START_TEST(threshold_grows_with_sqrt_k_times_magnitude_over_gauge)
{
    /* 16 + 2 sqrt(len) magnitude / gauge */
    ck_assert_double_eq(cmp_threshold(1, 1, 1), 18.0);
    ck_assert_double_eq(cmp_threshold(100, 10, 5), 26.0);
    ck_assert_double_eq(cmp_threshold(65536, 1, 2), 16.0 + 1024.0);
    /* Signed data: the magnitude is ~sqrt(K) times smaller than the gauge. */
    ck_assert_double_eq(cmp_threshold(65536, 65536, 256), 18.0);
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
    TCase *th = tcase_create("threshold");
    tcase_add_test(th, threshold_is_16_for_short_sums_and_empty_gauges);
    tcase_add_test(th, threshold_grows_with_sqrt_k_times_magnitude_over_gauge);
    suite_add_tcase(s, th);
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
