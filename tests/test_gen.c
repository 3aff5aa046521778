/* SPDX-License-Identifier: MIT */
/* test_gen.c: input generation (gen.c): same seed and stream give the same bits, streams and
 * seeds differ, each distribution stays in its range, special cases hold every special
 * value they ask for, and wideint data are as wide as promised and exact (by ref.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gen.h"
#include "op_fixture.h"
#include "ref.h"
#include "tutil.h"

#define NV 4096

static struct hb_case mk(enum hb_op op, enum case_dist dist, uint64_t seed, unsigned specials)
{
    struct hb_case c;
    memset(&c, 0, sizeof c);
    c.op = op, c.dist = dist, c.seed = seed, c.specials = specials;
    return c;
}

/* An sgemm case's inputs are factors of products (gen_fill_products, B's rows N long); any
 * other's are summed themselves. */
static void fill(float *out, size_t n, const struct hb_case *c, long len, int stream)
{
    if (c->op == OP_SGEMM)
        gen_fill_products(out, n, c, len, T_SIZE(c, "N"), stream);
    else
        gen_fill(out, n, c, len, stream);
}

static float a[NV], b[NV];

START_TEST(same_seed_and_stream_give_the_same_bits)
{
    for (int d = 0; d < DIST_COUNT; d++) {
        struct hb_case c = mk(OP_SGEMM, (enum case_dist)d, 12345, SPECIAL_NAN | SPECIAL_SUBNORMAL);
        fill(a, NV, &c, 64, 0);
        fill(b, NV, &c, 64, 0);
        ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
    }
}
END_TEST

START_TEST(streams_and_seeds_differ)
{
    struct hb_case c = mk(OP_SGEMM, DIST_UNIFORM, 7, 0);
    fill(a, NV, &c, 64, 0);
    fill(b, NV, &c, 64, 1);
    ck_assert_int_ne(memcmp(a, b, sizeof a), 0);
    c.seed = 8;
    fill(b, NV, &c, 64, 0);
    ck_assert_int_ne(memcmp(a, b, sizeof a), 0);
    /* A shorter fill is a prefix of a longer one. */
    c.seed = 7;
    fill(b, 100, &c, 64, 0);
    ck_assert_int_eq(memcmp(a, b, 100 * sizeof *a), 0);
}
END_TEST

START_TEST(exact_amplitude_shrinks_with_length)
{
    ck_assert_int_eq(gen_exact_amplitude(1, 2), 8);
    ck_assert_int_eq(gen_exact_amplitude(64, 2), 8);
    ck_assert_int_eq(gen_exact_amplitude(1L << 20, 2), 3); /* 2^20 * 9 < 2^24 <= 2^20 * 16 */
    ck_assert_int_eq(gen_exact_amplitude(1L << 24, 2), 1);
    ck_assert_int_eq(gen_exact_amplitude(1L << 21, 1), 7);
    ck_assert_int_eq(gen_exact_amplitude(1L << 24, 1), 1);
}
END_TEST

static void check_exact(enum hb_op op, long len)
{
    struct hb_case c = mk(op, DIST_EXACT, 99, 0);
    int amp = gen_exact_amplitude(len, op == OP_SGEMM ? 2 : 1);
    fill(a, NV, &c, len, 0);
    int seen_max = 0;
    for (int i = 0; i < NV; i++) {
        float twice = 2 * a[i];
        ck_assert_float_eq(twice, rintf(twice));
        ck_assert_float_le(fabsf(twice), (float)amp);
        seen_max |= fabsf(twice) == (float)amp;
    }
    ck_assert(seen_max);
}

START_TEST(exact_values_are_halves_within_amplitude)
{
    check_exact(OP_SGEMM, 64);
    check_exact(OP_SGEMM, 1L << 20);
    check_exact(OP_REDUCE, 1024);
    check_exact(OP_REDUCE, 1L << 22);
}
END_TEST

START_TEST(uniform_values_lie_in_minus_one_to_one)
{
    struct hb_case c = mk(OP_REDUCE, DIST_UNIFORM, 3, 0);
    fill(a, NV, &c, 1024, 0);
    int neg = 0;
    for (int i = 0; i < NV; i++) {
        ck_assert(a[i] >= -1.0f && a[i] < 1.0f);
        neg += a[i] < 0;
    }
    ck_assert_int_gt(neg, NV / 4);
    ck_assert_int_lt(neg, 3 * NV / 4);
}
END_TEST

START_TEST(cancel_values_span_magnitudes_with_both_signs)
{
    struct hb_case c = mk(OP_REDUCE, DIST_CANCEL, 3, 0);
    fill(a, NV, &c, 1024, 0);
    int neg = 0, big = 0, small = 0;
    for (int i = 0; i < NV; i++) {
        float m = fabsf(a[i]);
        ck_assert(m >= 0x1p-20f && m < 0x1p21f);
        neg += a[i] < 0, big += m >= 0x1p10f, small += m < 0x1p-10f;
    }
    ck_assert(neg > 0 && neg < NV);
    ck_assert(big > 0 && small > 0);
}
END_TEST

static int count(int (*pred)(float), size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += pred(a[i]) != 0;
    return k;
}
static int is_nan(float f) { return isnan(f); }
static int is_inf(float f) { return isinf(f); }
static int is_negzero(float f) { return f == 0 && signbit(f); }
static int is_sub(float f) { return f != 0 && fabsf(f) < FLT_MIN; }

START_TEST(special_holds_each_value_asked_for)
{
    const size_t sizes[] = {1, 7, NV};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        struct hb_case c = mk(OP_SGEMM, DIST_SPECIAL, 5, SPECIAL_NAN);
        fill(a, n, &c, 64, 0);
        ck_assert_int_ge(count(is_nan, n), 1);
        ck_assert_int_eq(count(is_inf, n), 0);
        c.specials = SPECIAL_INF;
        fill(a, n, &c, 64, 0);
        ck_assert_int_ge(count(is_inf, n), 1);
        ck_assert_int_eq(count(is_nan, n), 0);
        c.specials = SPECIAL_NEGZERO;
        fill(a, n, &c, 64, 0);
        ck_assert_int_ge(count(is_negzero, n), 1);
        c.specials = SPECIAL_SUBNORMAL;
        fill(a, n, &c, 64, 0);
        ck_assert_int_ge(count(is_sub, n), 1);
    }
    /* NaN stays sparse: one poisons a whole row of C. */
    struct hb_case c = mk(OP_SGEMM, DIST_SPECIAL, 5, SPECIAL_NAN | SPECIAL_INF);
    fill(a, NV, &c, 64, 0);
    ck_assert_int_le(count(is_nan, NV) + count(is_inf, NV), 2 * (NV / 256 + 1));
}
END_TEST

START_TEST(non_special_dists_hold_no_specials)
{
    for (int d = 0; d < DIST_COUNT; d++) {
        if (d == DIST_SPECIAL)
            continue;
        struct hb_case c = mk(OP_SGEMM, (enum case_dist)d, 11, SPECIAL_NAN | SPECIAL_INF);
        fill(a, NV, &c, 64, 0);
        ck_assert_int_eq(count(is_nan, NV) + count(is_inf, NV) + count(is_sub, NV), 0);
    }
}
END_TEST

START_TEST(wideint_a_holds_odd_integers_of_12_bits)
{
    struct hb_case c = mk(OP_SGEMM, DIST_WIDEINT, 21, 0);
    fill(a, NV, &c, 65537, 0);
    int neg = 0;
    for (int i = 0; i < NV; i++) {
        float m = fabsf(a[i]);
        /* odd and above 2^11: 12 significant bits, more than TF32 (11) or bf16 (8) hold */
        ck_assert(m >= 2049 && m <= 4095 && fmodf(m, 2) == 1);
        neg += a[i] < 0;
    }
    ck_assert(neg > 0 && neg < NV);
}
END_TEST

START_TEST(wideint_b_holds_halves_on_every_stride_th_row)
{
    long stride;
    ck_assert_int_eq(gen_wideint_amplitude(1, &stride), 8);
    ck_assert_int_eq(stride, 1);
    ck_assert_int_eq(gen_wideint_amplitude(2048, &stride), 2);
    ck_assert_int_eq(gen_wideint_amplitude(4097, &stride), 1);
    ck_assert_int_eq(stride, 1);
    ck_assert_int_eq(gen_wideint_amplitude(4098, &stride), 1);
    ck_assert_int_eq(stride, 2);
    ck_assert_int_eq(gen_wideint_amplitude(65537, &stride), 1);
    ck_assert_int_eq(stride, 16);
    struct hb_case c = mk(OP_SGEMM, DIST_WIDEINT, 21, 0);
    T_SET(&c, "N", 3);
    fill(a, NV, &c, 65537, 1);
    int nonzero = 0;
    for (int i = 0; i < NV; i++) {
        ck_assert(fabsf(a[i]) <= 0.5f && rintf(2 * a[i]) == 2 * a[i]);
        ck_assert(a[i] == 0 || (i / 3) % 16 == 0);
        nonzero += a[i] != 0;
    }
    ck_assert_int_gt(nonzero, 0);
}
END_TEST

START_TEST(wideint_sums_are_exact_at_every_length)
{
    const long lens[] = {1, 17, 2048, 4097, 4098, 65537, 262145};
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        long K = lens[l];
        struct hb_case c = mk(OP_SGEMM, DIST_WIDEINT, 33, 0);
        T_SET(&c, "M", 2), T_SET(&c, "N", 3), T_SET(&c, "K", K);
        float *A = calloc((size_t)K * 2, sizeof *A), *B = calloc((size_t)K * 3, sizeof *B);
        ck_assert(A && B);
        fill(A, (size_t)K * 2, &c, K, 0);
        fill(B, (size_t)K * 3, &c, K, 1);
        struct ref_sgemm r;
        ref_sgemm_compute(&r, A, B, 2, 3, K);
        for (int i = 0; i < 6; i++)
            ck_assert_msg(r.exact[i], "K %ld element %d", K, i);
        ref_sgemm_free(&r);
        free(A), free(B);
    }
}
END_TEST

START_TEST(wideint_reduce_is_as_wide_as_the_length_allows)
{
    struct hb_case c = mk(OP_REDUCE, DIST_WIDEINT, 5, 0);
    fill(a, NV, &c, 1024, 0); /* 1024 * (2^14 - 1) < 2^24 <= 1024 * (2^15 - 1) */
    for (int i = 0; i < NV; i++) {
        float m = fabsf(a[i]);
        ck_assert(m >= 8193 && m <= 16383 && fmodf(m, 2) == 1);
    }
    struct ref_reduce r;
    ref_reduce_compute(&r, a, NV, 1024);
    for (long b = 0; b < r.blocks; b++)
        ck_assert(r.exact[b]);
    ref_reduce_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gen");
    TCase *t = tcase_create("gen");
    tcase_add_test(t, same_seed_and_stream_give_the_same_bits);
    tcase_add_test(t, streams_and_seeds_differ);
    tcase_add_test(t, exact_amplitude_shrinks_with_length);
    tcase_add_test(t, exact_values_are_halves_within_amplitude);
    tcase_add_test(t, uniform_values_lie_in_minus_one_to_one);
    tcase_add_test(t, cancel_values_span_magnitudes_with_both_signs);
    tcase_add_test(t, special_holds_each_value_asked_for);
    tcase_add_test(t, non_special_dists_hold_no_specials);
    tcase_add_test(t, wideint_a_holds_odd_integers_of_12_bits);
    tcase_add_test(t, wideint_b_holds_halves_on_every_stride_th_row);
    tcase_add_test(t, wideint_sums_are_exact_at_every_length);
    tcase_add_test(t, wideint_reduce_is_as_wide_as_the_length_allows);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
