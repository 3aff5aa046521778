/* SPDX-License-Identifier: MIT */
/* test_reduce.c: the reduce op's forms (reduce_form.c, reduce_exact.c, compare.c's typed sums):
 * integer sums wrap alike in every order, max and min start from the combine's identity and
 * take a NaN or the NaN-free result where a chunk holds a NaN, one total covers all of x (and
 * is the identity over none), and an f64 sum is held to f64's epsilon, not f32's. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compare.h"
#include "reduce.h"
#include "ref.h"
#include "tutil.h"

/* A kernel's form as red_parse leaves it: the keys given, the rest defaults. */
static struct kern_desc form(const char *type, const char *combine, const char *partials, long chunk)
{
    struct kern_desc k;
    memset(&k, 0, sizeof k);
    k.name = "k", k.op = OP_REDUCE, k.chunk = chunk, k.line = 1;
    const char *text[RED_KEYS] = {type, combine, partials, NULL};
    int line[RED_KEYS] = {2, 3, 4, 0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(red_parse(&k, text, line, "m", &err), 0);
    return k;
}

START_TEST(integer_sums_wrap_in_every_order)
{
    struct kern_desc k = form("i32", NULL, NULL, 2);
    int32_t x[4] = {INT32_MAX, 1, -5, 2};
    struct red_exact e;
    red_exact_compute(&e, &k.reduce, x, 4, 2);
    ck_assert_int_eq(e.outputs, 2);
    ck_assert_int_eq(((int32_t *)e.want)[0], INT32_MIN); /* two's complement, as the GPU adds */
    ck_assert_int_eq(((int32_t *)e.want)[1], -3);
    int32_t got[2] = {INT32_MIN, -3};
    struct cmp_result r;
    cmp_init(&r);
    red_exact_compare(&e, got, &r);
    ck_assert_uint_eq(r.classes, 0);
    got[1] = -2;
    cmp_init(&r);
    red_exact_compare(&e, got, &r);
    ck_assert_uint_eq(r.classes, CLS_WRONG);
    ck_assert_int_eq(r.first_i, 1);
    ck_assert_str_eq(r.first_values, "expected -3 got -2 (i32)");
    got[1] = (int32_t)0x7fa5a5a5; /* the poison: never written */
    cmp_init(&r);
    red_exact_compare(&e, got, &r);
    ck_assert_uint_eq(r.classes, CLS_UNWRITTEN);
    red_exact_free(&e);
}
END_TEST

START_TEST(max_and_min_start_from_their_identity)
{
    struct kern_desc mx = form("i32", "max", NULL, 3), mn = form("u32", "min", NULL, 3);
    ck_assert(mx.reduce.identity == INT32_MIN && red_identity_int(&mx.reduce) == INT32_MIN);
    ck_assert(red_identity_int(&mn.reduce) == -1); /* UINT32_MAX, as 32 bits */
    int32_t neg[3] = {-7, -3, -9};
    struct red_exact e;
    red_exact_compute(&e, &mx.reduce, neg, 3, 3);
    ck_assert_int_eq(((int32_t *)e.want)[0], -3); /* not 0: a max from 0 fails here */
    red_exact_free(&e);
    struct kern_desc fm = form(NULL, "max", NULL, 4);
    float f[4] = {1, NAN, 3, -0.0f};
    red_exact_compute(&e, &fm.reduce, f, 4, 4);
    ck_assert(((float *)e.want)[0] == 3 && e.nan_ok[0]);
    float got_nan = NAN, got_three = 3;
    struct cmp_result r;
    cmp_init(&r);
    red_exact_compare(&e, &got_nan, &r);
    red_exact_compare(&e, &got_three, &r);
    ck_assert_uint_eq(r.classes, 0); /* fmaxf skips the NaN; a comparison may keep it */
    ck_assert(r.no_total);
    red_exact_free(&e);
}
END_TEST

START_TEST(one_total_covers_all_of_x)
{
    struct kern_desc k = form("u32", NULL, "1", 0);
    ck_assert_int_eq(red_outputs(&k, 100000), 1);
    uint32_t x[5] = {1, 2, 3, 4, 5};
    struct red_exact e;
    red_exact_compute(&e, &k.reduce, x, 5, 5);
    ck_assert_uint_eq(((uint32_t *)e.want)[0], 15);
    red_exact_free(&e);
    red_exact_compute(&e, &k.reduce, x, 0, 1);
    ck_assert_int_eq(e.outputs, 1);
    ck_assert_uint_eq(((uint32_t *)e.want)[0], 0); /* nothing to add: the identity */
    red_exact_free(&e);
    struct kern_desc f = form("f16", NULL, NULL, 4);
    ck_assert_int_eq(red_partial_type(TY_F16), TY_F32);
    ck_assert(!red_is_exact(&f.reduce) && red_is_exact(&k.reduce));
}
END_TEST

START_TEST(f64_sums_are_held_to_f64s_epsilon)
{
    enum { N = 4097 };
    static double x[N];
    for (int i = 0; i < N; i++)
        x[i] = (i % 7 - 3) * 0.1 + 1e-3 * i;
    struct ref_reduce ref;
    ref_reduce_compute_f64(&ref, x, N, N);
    double seq = 0; /* a correct order: sequential, in double */
    float in_float = 0;
    for (int i = 0; i < N; i++)
        seq += x[i], in_float += (float)x[i];
    struct cmp_result r;
    cmp_init(&r);
    cmp_reduce_typed(&ref, TY_F64, &seq, 0, &r);
    ck_assert_uint_eq(r.classes, 0);
    ck_assert(r.max_ratio < r.threshold);
    double wide = in_float; /* right for f32's bound, far outside f64's */
    cmp_init(&r);
    cmp_reduce_typed(&ref, TY_F64, &wide, 0, &r);
    ck_assert_uint_eq(r.classes, CLS_WRONG);
    ck_assert_ptr_nonnull(strstr(r.first_values, "(f64)"));
    ref_reduce_free(&ref);
}
END_TEST

START_TEST(bad_forms_name_their_line)
{
    struct kern_desc k;
    memset(&k, 0, sizeof k);
    k.name = "k", k.op = OP_REDUCE, k.chunk = 8, k.line = 1;
    const char *text[RED_KEYS] = {"i32", "max", NULL, "2147483648"};
    int line[RED_KEYS] = {2, 3, 0, 5};
    struct hb_err err = {{0}};
    ck_assert_int_eq(red_parse(&k, text, line, "m", &err), -1);
    ck_assert_str_eq(err.msg,
                     "m:5: identity 2147483648 is not the neutral element of max over i32 (write -2147483648 or "
                     "leave identity out)");
    k.op = OP_SGEMM;
    ck_assert_int_eq(red_parse(&k, text, line, "m", &err), -1);
    ck_assert_str_eq(err.msg, "m:2: kernel [k]: type applies to op = reduce only");
}
END_TEST

/* The identity of a form given as text; 0 when accepted. */
static int identity(const char *type, const char *combine, const char *value, struct hb_err *err)
{
    struct kern_desc k;
    memset(&k, 0, sizeof k);
    k.name = "k", k.op = OP_REDUCE, k.chunk = 8, k.line = 1;
    const char *text[RED_KEYS] = {type, combine, NULL, value};
    int line[RED_KEYS] = {2, 3, 0, 5};
    return red_parse(&k, text, line, "m", err);
}

/* Only the combine's neutral element: anything else (NaN above all) changes every expected
 * output, and a kernel that writes nothing could match it. */
START_TEST(issue_47_an_identity_is_the_neutral_element)
{
    struct hb_err err = {{0}};
    ck_assert_int_eq(identity("f32", "max", "nan", &err), -1);
    ck_assert_str_eq(err.msg, "m:5: identity nan is not the neutral element of max over f32 (write -inf or leave "
                              "identity out)");
    ck_assert_int_eq(identity("i32", "max", "2147483647", &err), -1);
    ck_assert_int_eq(identity("f32", "min", "3.4028235e38", &err), -1); /* FLT_MAX, not inf */
    ck_assert_ptr_nonnull(strstr(err.msg, "(write inf or leave identity out)"));
    ck_assert_int_eq(identity("u32", "max", "0x10", &err), -1);
    ck_assert_int_eq(identity("f32", "sum", "1", &err), -1);
    ck_assert_int_eq(identity("f64", "sum", "nan", &err), -1);
    ck_assert_int_eq(identity("i32", "sum", "abc", &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "expected a number"));
    const char *good[][3] = {{"f32", "max", "-inf"}, {"f16", "min", "inf"},         {"f32", "sum", "-0"},
                             {"f64", "sum", "0"},    {"i32", "max", "-2147483648"}, {"i32", "min", "2147483647"},
                             {"u32", "max", "0"},    {"u32", "min", "4294967295"},  {"i32", "sum", "0"},
                             {"u32", "sum", "0x0"}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(identity(good[i][0], good[i][1], good[i][2], &err) == 0, "%s", err.msg);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *t = tcase_create("reduce");
    tcase_add_test(t, integer_sums_wrap_in_every_order);
    tcase_add_test(t, max_and_min_start_from_their_identity);
    tcase_add_test(t, one_total_covers_all_of_x);
    tcase_add_test(t, f64_sums_are_held_to_f64s_epsilon);
    tcase_add_test(t, bad_forms_name_their_line);
    tcase_add_test(t, issue_47_an_identity_is_the_neutral_element);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
