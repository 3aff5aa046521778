/* SPDX-License-Identifier: MIT */
/* test_compare_nan.c: compare.c's NaN-origin figures: a NaN result is counted by the pattern
 * its payload carries (the output poison: C read before it was written; the guard pattern: an
 * input read past its end; anything else), whatever its sign and quiet bit, and an untouched
 * poison is still "unwritten". References come from the real ref_sgemm_compute. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compare.h"
#include "compare_fixture.h"
#include "guard.h"
#include "tutil.h"

START_TEST(nan_results_are_counted_by_the_pattern_they_carry)
{
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1};
    struct ref_sgemm ref;
    ref_sgemm_compute(&ref, A, B, 2, 2, 2);
    /* The poison after arithmetic (quieted, sign flipped), the guard pattern, a plain NaN,
     * and the poison untouched. */
    float got[4] = {from_bits((GRD_POISON_BITS | 0x00400000u) ^ 0x80000000u), from_bits(GRD_BITS), NAN,
                    from_bits(GRD_POISON_BITS)};
    struct cmp_result r;
    cmp_init(&r);
    cmp_sgemm(&ref, got, 0, &r);
    ck_assert_int_eq(r.nan_mismatch, 3);
    ck_assert_int_eq(r.nan_poison, 1);
    ck_assert_int_eq(r.nan_guard, 1);
    ck_assert_int_eq(r.nan_other, 1);
    ck_assert_int_eq(r.unwritten, 1);
    ck_assert_int_eq(r.bad, 4);
    ref_sgemm_free(&ref);
}
END_TEST

START_TEST(right_results_count_no_nan)
{
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1};
    struct ref_sgemm ref;
    ref_sgemm_compute(&ref, A, B, 2, 2, 2);
    struct cmp_result r;
    cmp_init(&r);
    cmp_sgemm(&ref, A, 0, &r);
    ck_assert_int_eq(r.nan_poison + r.nan_guard + r.nan_other + r.nan_mismatch, 0);
    ref_sgemm_free(&ref);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compare_nan");
    TCase *tc = tcase_create("compare_nan");
    tcase_add_test(tc, nan_results_are_counted_by_the_pattern_they_carry);
    tcase_add_test(tc, right_results_count_no_nan);
    suite_add_tcase(s, tc);
    return t_run(s);
}
