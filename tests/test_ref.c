/* SPDX-License-Identifier: MIT */
/* test_ref.c: the host references (reference/ref.c): known small products in float and
 * float64, the |A||B| gauge, the spread, exactness on a grid, empty shapes, the flush
 * allowance (subnormal inputs; products and sums off the FLT_MIN grid), and reduce partials,
 * gauges and the compensated total. Runs the real OpenBLAS. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ref.h"
#include "tutil.h"

/* A = [1 -2 3; -4 5 -6], B = [7 8; 9 10; 11 12]. */
static const float A[6] = {1, -2, 3, -4, 5, -6};
static const float B[6] = {7, 8, 9, 10, 11, 12};

START_TEST(sgemm_small_integer_product_is_exact_in_both_precisions)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 2, 2, 3);
    const double want[4] = {22, 24, -49, -54};
    ck_assert_int_eq(r.M, 2);
    ck_assert_int_eq(r.N, 2);
    ck_assert_int_eq(r.K, 3);
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq(r.c32[i], (float)want[i]);
        ck_assert_double_eq(r.c64[i], want[i]);
    }
    ref_sgemm_free(&r);
    ck_assert_ptr_null(r.c32);
}
END_TEST

START_TEST(sgemm_gauge_is_abs_a_times_abs_b)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 2, 2, 3);
    const double want[4] = {58, 64, 139, 154};
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq(r.gauge[i], want[i]);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_non_square_shapes_are_row_major)
{
    /* 1x3 times 3x2 and 2x1 times 1x3. */
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 1, 2, 3);
    ck_assert_double_eq(r.c64[0], 22);
    ck_assert_double_eq(r.c64[1], 24);
    ref_sgemm_free(&r);
    const float col[2] = {2, -1}, row[3] = {1, 2, 3};
    ref_sgemm_compute(&r, col, row, 2, 3, 1);
    const float want[6] = {2, 4, 6, -1, -2, -3};
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(r.c32[i], want[i]);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_k_zero_gives_zeros)
{
    struct ref_sgemm r;
    const float dummy[1] = {42};
    ref_sgemm_compute(&r, dummy, dummy, 3, 2, 0);
    for (int i = 0; i < 6; i++) {
        ck_assert_float_eq(r.c32[i], 0.0f);
        ck_assert(!signbit(r.c32[i]));
        ck_assert_double_eq(r.c64[i], 0.0);
        ck_assert_double_eq(r.gauge[i], 0.0);
    }
    ck_assert_ptr_null(r.flush);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_empty_m_or_n_is_fine)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 0, 2, 3);
    ck_assert_int_eq(r.M, 0);
    ck_assert_ptr_nonnull(r.c32);
    ref_sgemm_free(&r);
    ref_sgemm_compute(&r, A, B, 2, 0, 3);
    ck_assert_int_eq(r.N, 0);
    ref_sgemm_free(&r);
    ref_sgemm_compute(&r, A, B, 0, 0, 0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_flush_is_null_without_subnormals)
{
    struct ref_sgemm r;
    const float a[2] = {FLT_MIN, -0.0f}, b[2] = {1, 1};
    ref_sgemm_compute(&r, a, b, 1, 1, 2);
    ck_assert_ptr_null(r.flush);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_flush_bounds_what_a_subnormal_input_contributes)
{
    /* A[0][0] is subnormal: row 0 of C may lose |A00||B0j|; row 1 nothing. */
    const float sub = 1e-40f;
    float a[6];
    memcpy(a, A, sizeof a);
    a[0] = sub;
    struct ref_sgemm r;
    ref_sgemm_compute(&r, a, B, 2, 2, 3);
    ck_assert_ptr_nonnull(r.flush);
    /* Row 0 is off the FLT_MIN grid too: 2 K FLT_MIN for products and sums that may flush. */
    ck_assert_double_eq(r.flush[0], (double)sub * 7 + 6.0 * FLT_MIN);
    ck_assert_double_eq(r.flush[1], (double)sub * 8 + 6.0 * FLT_MIN);
    ck_assert_double_eq(r.flush[2], 0.0);
    ck_assert_double_eq(r.flush[3], 0.0);
    ref_sgemm_free(&r);
    /* A subnormal in B counts too, against |A|. */
    float b[6];
    memcpy(b, B, sizeof b);
    b[5] = -sub; /* B[2][1] */
    ref_sgemm_compute(&r, A, b, 2, 2, 3);
    ck_assert_ptr_nonnull(r.flush);
    ck_assert_double_eq(r.flush[0], 0.0);
    ck_assert_double_eq(r.flush[1], 3 * (double)sub + 6.0 * FLT_MIN);
    ck_assert_double_eq(r.flush[3], 6 * (double)sub + 6.0 * FLT_MIN);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(reduce_partials_gauges_and_total)
{
    const float x[5] = {1, -2, 3, -4, 5};
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 5, 2);
    ck_assert_int_eq(r.n, 5);
    ck_assert_int_eq(r.chunk, 2);
    ck_assert_int_eq(r.blocks, 3);
    const double partial[3] = {-1, -1, 5}, gauge[3] = {3, 7, 5};
    for (int b = 0; b < 3; b++) {
        ck_assert_double_eq(r.partial64[b], partial[b]);
        ck_assert_double_eq(r.gauge[b], gauge[b]);
    }
    ck_assert_double_eq(r.total64, 3);
    ck_assert_double_eq(r.total_abs, 15);
    ck_assert_ptr_null(r.flush);
    ref_reduce_free(&r);
    ck_assert_ptr_null(r.partial64);
}
END_TEST

START_TEST(reduce_chunk_larger_than_n_is_one_block)
{
    const float x[3] = {0.5f, 0.25f, 0.125f};
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 3, 1024);
    ck_assert_int_eq(r.blocks, 1);
    ck_assert_double_eq(r.partial64[0], 0.875);
    ref_reduce_free(&r);
    ref_reduce_compute(&r, x, 0, 1024);
    ck_assert_int_eq(r.blocks, 0);
    ck_assert_double_eq(r.total64, 0);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(reduce_total_is_compensated)
{
    const float x[3] = {1e8f, 1.0f, -1e8f};
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 3, 3);
    ck_assert_double_eq(r.total64, 1.0);
    ref_reduce_free(&r);
    /* Beyond float64's reach: 2^60 + 1 rounds to 2^60, a plain double sum gives 0. */
    const float y[3] = {0x1p60f, 1.0f, -0x1p60f};
    ref_reduce_compute(&r, y, 3, 1);
    ck_assert_double_eq(r.total64, 1.0);
    ck_assert_double_eq(r.total_abs, 0x1p61 + 1);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(reduce_flush_counts_subnormals_per_block)
{
    const float x[4] = {1e-40f, 1.0f, 2.0f, -1e-39f};
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 4, 2);
    ck_assert_ptr_nonnull(r.flush);
    ck_assert_double_eq(r.flush[0], (double)1e-40f + 2.0 * FLT_MIN);
    ck_assert_double_eq(r.flush[1], (double)1e-39f + 2.0 * FLT_MIN);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(sgemm_spread_is_the_root_of_summed_squared_terms)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 2, 2, 3);
    /* C00 = 1*7 - 2*9 + 3*11: terms 7, -18, 33 */
    ck_assert_double_eq_tol(r.spread[0], sqrt(49.0 + 324 + 1089), 1e-12);
    ck_assert_double_eq_tol(r.spread[3], sqrt(16.0 * 64 + 25 * 100 + 36 * 144), 1e-12);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_exact_where_terms_fit_a_grid_of_2_to_the_24)
{
    struct ref_sgemm r;
    ref_sgemm_compute(&r, A, B, 2, 2, 3);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(r.exact[i], 1);
    ref_sgemm_free(&r);
    /* 4097^2 needs 25 bits: a float cannot hold it, so no order is exact. */
    const float big = 4097;
    ref_sgemm_compute(&r, &big, &big, 1, 1, 1);
    ck_assert_int_eq(r.exact[0], 0);
    ref_sgemm_free(&r);
    /* 0.1 has 24 significant bits: its products are not floats. */
    const float tenth[2] = {0.1f, 0.3f}, one[2] = {1.0f, 3.0f};
    ref_sgemm_compute(&r, tenth, one, 1, 1, 2);
    ck_assert_int_eq(r.exact[0], 0);
    ref_sgemm_free(&r);
    /* A zero row is exact whatever B holds; a subnormal breaks the grid. */
    const float zeros[2] = {0, 0}, sub[2] = {1e-40f, 1};
    ref_sgemm_compute(&r, zeros, tenth, 1, 1, 2);
    ck_assert_int_eq(r.exact[0], 1);
    ref_sgemm_free(&r);
    ref_sgemm_compute(&r, sub, one, 1, 1, 2);
    ck_assert_int_eq(r.exact[0], 0);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(sgemm_underflow_allowance_only_off_the_flt_min_grid)
{
    /* Products of 2^-120 sit on the FLT_MIN grid: no sum of them can be subnormal. */
    const float a[2] = {0x1p-60f, -0x1p-60f}, b[2] = {0x1p-60f, 0x1p-59f};
    struct ref_sgemm r;
    ref_sgemm_compute(&r, a, b, 1, 1, 2);
    ck_assert_ptr_null(r.flush);
    ck_assert_int_eq(r.exact[0], 1);
    ref_sgemm_free(&r);
    /* With 20 more bits, products of 2^-122 have steps of 2^-150: partial sums can be subnormal. */
    const float c[2] = {0x1.00001p-61f, -0x1p-61f};
    ref_sgemm_compute(&r, c, b, 1, 1, 2);
    ck_assert_ptr_nonnull(r.flush);
    ck_assert_double_eq(r.flush[0], 4.0 * FLT_MIN);
    ref_sgemm_free(&r);
}
END_TEST

START_TEST(reduce_spread_and_exactness_per_block)
{
    const float x[5] = {1, -2, 3, 0.1f, 5};
    struct ref_reduce r;
    ref_reduce_compute(&r, x, 5, 2);
    ck_assert_double_eq(r.spread[0], sqrt(5.0));
    ck_assert_int_eq(r.exact[0], 1);
    ck_assert_int_eq(r.exact[1], 0); /* 0.1 is 24 bits below 3 */
    ck_assert_int_eq(r.exact[2], 1);
    ck_assert_ptr_null(r.flush);
    ref_reduce_free(&r);
}
END_TEST

START_TEST(library_names_openblas)
{
    const char *lib = ref_library();
    ck_assert_ptr_nonnull(lib);
    ck_assert_ptr_nonnull(strstr(lib, "OpenBLAS"));
}
END_TEST

/* Only OpenBLAS's fallback is replaced, only by what the CPU runs, never over the user's choice. */
START_TEST(better_core_only_replaces_the_prescott_fallback)
{
    ck_assert_str_eq(ref_core_for(NULL, "Prescott", 1, 1), "SkylakeX");
    ck_assert_str_eq(ref_core_for("", "Prescott", 0, 1), "Haswell");
    ck_assert_ptr_null(ref_core_for(NULL, "Prescott", 0, 0));
    ck_assert_ptr_null(ref_core_for("Prescott", "Prescott", 1, 1));
    ck_assert_ptr_null(ref_core_for(NULL, "SkylakeX", 1, 1));
    ck_assert_ptr_null(ref_core_for(NULL, "Haswell", 1, 1));
    ck_assert_ptr_null(ref_core_for(NULL, NULL, 1, 1));
}
END_TEST

/* Several callers: at most 4 OpenBLAS threads each, never down to 1 (that changes the bits). */
START_TEST(blas_threads_shrink_for_several_callers_but_not_to_one)
{
    ck_assert_int_eq(ref_blas_threads_for(16, 16), 4);
    ck_assert_int_eq(ref_blas_threads_for(2, 64), 4);
    ck_assert_int_eq(ref_blas_threads_for(16, 3), 3);
    ck_assert_int_eq(ref_blas_threads_for(16, 2), 2);
    ck_assert_int_eq(ref_blas_threads_for(16, 1), 1);
    ck_assert_int_eq(ref_blas_threads_for(1, 16), 16);
    int was = ref_blas_threads();
    ref_set_blas_threads(1);
    ck_assert_int_eq(ref_blas_threads(), 1);
    ref_set_blas_threads(was);
    ck_assert_int_eq(ref_blas_threads(), was);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ref");
    TCase *sg = tcase_create("sgemm");
    tcase_add_test(sg, sgemm_small_integer_product_is_exact_in_both_precisions);
    tcase_add_test(sg, sgemm_gauge_is_abs_a_times_abs_b);
    tcase_add_test(sg, sgemm_non_square_shapes_are_row_major);
    tcase_add_test(sg, sgemm_k_zero_gives_zeros);
    tcase_add_test(sg, sgemm_empty_m_or_n_is_fine);
    tcase_add_test(sg, sgemm_flush_is_null_without_subnormals);
    tcase_add_test(sg, sgemm_flush_bounds_what_a_subnormal_input_contributes);
    tcase_add_test(sg, sgemm_spread_is_the_root_of_summed_squared_terms);
    tcase_add_test(sg, sgemm_exact_where_terms_fit_a_grid_of_2_to_the_24);
    tcase_add_test(sg, sgemm_underflow_allowance_only_off_the_flt_min_grid);
    suite_add_tcase(s, sg);
    TCase *rd = tcase_create("reduce");
    tcase_add_test(rd, reduce_partials_gauges_and_total);
    tcase_add_test(rd, reduce_chunk_larger_than_n_is_one_block);
    tcase_add_test(rd, reduce_total_is_compensated);
    tcase_add_test(rd, reduce_flush_counts_subnormals_per_block);
    tcase_add_test(rd, reduce_spread_and_exactness_per_block);
    tcase_add_test(rd, library_names_openblas);
    tcase_add_test(rd, better_core_only_replaces_the_prescott_fallback);
    tcase_add_test(rd, blas_threads_shrink_for_several_callers_but_not_to_one);
    suite_add_tcase(s, rd);
    return s;
}

int main(void) { return t_run(suite()); }
