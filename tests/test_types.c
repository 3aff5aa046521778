/* SPDX-License-Identifier: MIT */
/* test_types.c: the element type table (types.c): names and sizes, f16 and bf16 rounding to
 * nearest even at every edge (ties, subnormals, overflow, NaN) and every 16-bit pattern back,
 * ULP distances that never overflow, stores that clamp, exact formatting, poisons that are
 * NaNs for floats, and whole-buffer poison fills and searches of every element size. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "tutil.h"
#include "types.h"

START_TEST(names_sizes_and_parse)
{
    static const unsigned sizes[TY_COUNT] = {4, 8, 2, 2, 4, 4, 8, 8, 1};
    for (int t = 0; t < TY_COUNT; t++) {
        enum hb_type back;
        ck_assert_int_eq(ty_parse(ty_get((enum hb_type)t)->name, &back), 0);
        ck_assert_int_eq(back, t);
        ck_assert_uint_eq(ty_get((enum hb_type)t)->size, sizes[t]);
        ck_assert_ptr_nonnull(strstr(ty_names(), ty_get((enum hb_type)t)->name));
    }
    enum hb_type t;
    ck_assert_int_eq(ty_parse("float", &t), -1);
    ck_assert_int_eq(ty_parse("", &t), -1);
    ck_assert_uint_eq(ty_get(TY_F16)->c_size, 4); /* a C reference gets f16 as float */
    ck_assert_str_eq(ty_get(TY_U8)->c_type, "uint8_t");
}
END_TEST

START_TEST(half_rounds_to_nearest_even)
{
    ck_assert_uint_eq(ty_half_from_float(1.0f), 0x3c00);
    ck_assert_uint_eq(ty_half_from_float(-2.0f), 0xc000);
    ck_assert_uint_eq(ty_half_from_float(-0.0f), 0x8000);
    ck_assert_uint_eq(ty_half_from_float(65504.0f), 0x7bff);
    ck_assert_uint_eq(ty_half_from_float(65519.0f), 0x7bff);            /* below the midpoint to 2^16 */
    ck_assert_uint_eq(ty_half_from_float(65520.0f), 0x7c00);            /* the midpoint ties to even: inf */
    ck_assert_uint_eq(ty_half_from_float(1.0f + 0x1p-11f), 0x3c00);     /* tie: stays even */
    ck_assert_uint_eq(ty_half_from_float(1.0f + 3 * 0x1p-11f), 0x3c02); /* tie: up to even */
    ck_assert_uint_eq(ty_half_from_float(0x1p-24f), 0x0001);            /* the smallest subnormal */
    ck_assert_uint_eq(ty_half_from_float(0x1p-25f), 0x0000);            /* half of it ties to 0 */
    ck_assert_uint_eq(ty_half_from_float(0x1.8p-25f), 0x0001);          /* above half rounds up */
    ck_assert_uint_eq(ty_half_from_float(0x1p-26f), 0x0000);
    ck_assert_uint_eq(ty_half_from_float(0x1.ffcp-15f), 0x0400); /* a subnormal that rounds to the smallest normal */
    ck_assert_uint_eq(ty_half_from_float(INFINITY), 0x7c00);
    ck_assert_uint_eq(ty_half_from_float(1e10f), 0x7c00);
    ck_assert_uint_eq(ty_half_from_float(NAN) & 0x7e00, 0x7e00);
}
END_TEST

START_TEST(every_half_goes_to_float_and_back)
{
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = ty_half_to_float((uint16_t)h);
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
            ck_assert(isnan(f));
            continue;
        }
        ck_assert_uint_eq(ty_half_from_float(f), h);
    }
    ck_assert_float_eq(ty_half_to_float(0x0001), 0x1p-24f);
    ck_assert_float_eq(ty_half_to_float(0x3555), 0x1.554p-2f);
}
END_TEST

START_TEST(bf16_rounds_to_nearest_even_and_round_trips)
{
    ck_assert_uint_eq(ty_bf16_from_float(1.0f), 0x3f80);
    ck_assert_uint_eq(ty_bf16_from_float(1.0f + 0x1p-8f), 0x3f80);     /* tie: stays even */
    ck_assert_uint_eq(ty_bf16_from_float(1.0f + 3 * 0x1p-8f), 0x3f82); /* tie: up to even */
    ck_assert_uint_eq(ty_bf16_from_float(1.0f + 0x1.2p-8f), 0x3f81);   /* above the tie */
    ck_assert_uint_eq(ty_bf16_from_float(FLT_MAX), 0x7f80);            /* rounds past the top: inf */
    ck_assert_uint_eq(ty_bf16_from_float(NAN) & 0x7fc0, 0x7fc0);
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = ty_bf16_to_float((uint16_t)h);
        if (isnan(f))
            continue;
        ck_assert_uint_eq(ty_bf16_from_float(f), h);
    }
}
END_TEST

START_TEST(ulp_distances_never_overflow)
{
    float a = 1.0f, b = nextafterf(1.0f, 2.0f), z = 0.0f, nz = -0.0f, nan = NAN;
    ck_assert_uint_eq(ty_ulp(TY_F32, &a, &b), 1);
    ck_assert_uint_eq(ty_ulp(TY_F32, &z, &nz), 0);
    ck_assert_uint_eq(ty_ulp(TY_F32, &nan, &nan), 0);
    ck_assert_uint_eq(ty_ulp(TY_F32, &nan, &a), UINT64_MAX);
    ck_assert_uint_eq(cmp_ulp(a, b), 1); /* the comparison counts with the same table */
    double lo = -DBL_MAX, hi = DBL_MAX;
    ck_assert_uint_eq(ty_ulp(TY_F64, &lo, &hi), 2 * 0x7fefffffffffffffull);
    uint16_t h1 = 0x3c00, h2 = 0xbc00;
    ck_assert_uint_eq(ty_ulp(TY_F16, &h1, &h2), 2 * 0x3c00);
    int32_t i1 = -5, i2 = 3;
    ck_assert_uint_eq(ty_ulp(TY_I32, &i1, &i2), 8);
    int64_t l1 = INT64_MIN, l2 = INT64_MAX;
    ck_assert_uint_eq(ty_ulp(TY_I64, &l1, &l2), UINT64_MAX);
    uint64_t u1 = 0, u2 = UINT64_MAX;
    ck_assert_uint_eq(ty_ulp(TY_U64, &u2, &u1), UINT64_MAX);
    uint8_t b1 = 200, b2 = 7;
    ck_assert_uint_eq(ty_ulp(TY_U8, &b1, &b2), 193);
}
END_TEST

START_TEST(stores_round_and_clamp)
{
    unsigned char p[8];
    ty_store(TY_U8, p, 300);
    ck_assert_uint_eq(p[0], 255);
    ty_store(TY_U8, p, -4);
    ck_assert_uint_eq(p[0], 0);
    ty_store(TY_I32, p, 1e10);
    ck_assert_double_eq(ty_value(TY_I32, p), INT32_MAX);
    ty_store(TY_I32, p, -7.9);
    ck_assert_double_eq(ty_value(TY_I32, p), -7);
    ty_store(TY_U64, p, 1e30);
    ck_assert_uint_eq(ty_bits(TY_U64, p), UINT64_MAX);
    ty_store(TY_I64, p, -1e30);
    ck_assert_uint_eq(ty_bits(TY_I64, p), (uint64_t)INT64_MIN);
    ty_store(TY_F16, p, 1.0 + 0x1p-11);
    ck_assert_uint_eq(ty_bits(TY_F16, p), 0x3c00);
    ty_store(TY_F64, p, 0.1);
    ck_assert_double_eq(ty_value(TY_F64, p), 0.1);
    ck_assert(ty_isnan(TY_F64, &(double){NAN}));
    ck_assert(ty_isinf(TY_BF16, &(uint16_t){0xff80}));
    ck_assert(!ty_isnan(TY_U32, &(uint32_t){0x7fc00000}));
}
END_TEST

START_TEST(formats_hold_every_digit)
{
    char buf[64];
    ty_format(TY_F32, &(float){0.1f}, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.100000001");
    ty_format(TY_F64, &(double){0.1}, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.10000000000000001");
    ty_format(TY_I64, &(int64_t){INT64_MIN}, buf, sizeof buf);
    ck_assert_str_eq(buf, "-9223372036854775808");
    ty_format(TY_U64, &(uint64_t){UINT64_MAX}, buf, sizeof buf);
    ck_assert_str_eq(buf, "18446744073709551615");
    ty_format(TY_I32, &(int32_t){-3}, buf, sizeof buf);
    ck_assert_str_eq(buf, "-3");
    ty_format(TY_F16, &(uint16_t){0x3555}, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.33325");
}
END_TEST

START_TEST(c_views_widen_half_types_only)
{
    uint16_t h[3] = {0x3c00, 0xc000, 0x0001}, back[3];
    float f[3];
    ty_to_c(TY_F16, h, f, 3);
    ck_assert_float_eq(f[0], 1.0f);
    ck_assert_float_eq(f[1], -2.0f);
    ck_assert_float_eq(f[2], 0x1p-24f);
    ty_from_c(TY_F16, f, back, 3);
    ck_assert_int_eq(memcmp(h, back, sizeof h), 0);
    int32_t i[2] = {7, -9}, j[2];
    ty_to_c(TY_I32, i, j, 2);
    ck_assert_int_eq(memcmp(i, j, sizeof i), 0);
}
END_TEST

START_TEST(poisons_are_nans_for_floats_and_come_in_two)
{
    for (int t = 0; t < TY_COUNT; t++) {
        const struct ty_info *ti = ty_get((enum hb_type)t);
        unsigned char p[8];
        ty_store_bits((enum hb_type)t, p, ti->poison);
        ck_assert_int_eq(ty_isnan((enum hb_type)t, p), ti->is_float);
        ck_assert_uint_ne(ti->poison, 0);
        /* The other poison (second runs, odd repeats): another NaN, or another integer. */
        ty_store_bits((enum hb_type)t, p, ti->poison2);
        ck_assert_int_eq(ty_isnan((enum hb_type)t, p), ti->is_float);
        ck_assert(ti->poison2 != ti->poison && ti->poison2 != 0);
    }
    /* Signalling, as the first: arithmetic on a CPU would change their bits. */
    ck_assert(!(ty_get(TY_F32)->poison2 & 0x00400000u) && !(ty_get(TY_F64)->poison2 & (1ull << 51)));
    ck_assert(!(ty_get(TY_F16)->poison2 & 0x200u) && !(ty_get(TY_BF16)->poison2 & 0x40u));
    ck_assert_uint_eq(ty_get(TY_F32)->poison, 0x7fa5a5a5u); /* the harness's output poison (guard.h) */
}
END_TEST

/* Every element of an odd count filled, nothing past it, and the first poisoned one found. */
START_TEST(poison_fills_and_finds_every_size)
{
    static const enum hb_type types[] = {TY_U8, TY_F16, TY_F32, TY_F64};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        enum hb_type t = types[i];
        size_t size = ty_get(t)->size, n = 1001;
        unsigned char buf[1002 * 8];
        memset(buf, 0, sizeof buf);
        ty_fill_bits(t, buf, ty_get(t)->poison, n);
        for (size_t e = 0; e < n; e++)
            ck_assert(ty_bits(t, buf + e * size) == ty_get(t)->poison);
        ck_assert(ty_bits(t, buf + n * size) == 0);
        ck_assert(ty_find_bits(t, buf, ty_get(t)->poison, n) == 0);
        memset(buf, 0, 700 * size);
        ck_assert(ty_find_bits(t, buf, ty_get(t)->poison, n) == 700);
        ck_assert(ty_find_bits(t, buf, ty_get(t)->poison, 700) == 700); /* none: n */
        ty_fill_bits(t, buf, 1, 0);
        ck_assert(ty_bits(t, buf) == 0);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("types");
    TCase *t = tcase_create("types");
    tcase_add_test(t, names_sizes_and_parse);
    tcase_add_test(t, half_rounds_to_nearest_even);
    tcase_add_test(t, every_half_goes_to_float_and_back);
    tcase_add_test(t, bf16_rounds_to_nearest_even_and_round_trips);
    tcase_add_test(t, ulp_distances_never_overflow);
    tcase_add_test(t, stores_round_and_clamp);
    tcase_add_test(t, formats_hold_every_digit);
    tcase_add_test(t, c_views_widen_half_types_only);
    tcase_add_test(t, poisons_are_nans_for_floats_and_come_in_two);
    tcase_add_test(t, poison_fills_and_finds_every_size);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
