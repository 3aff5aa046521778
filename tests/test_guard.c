/* SPDX-License-Identifier: MIT */
/* test_guard.c: guard bands and poison (guard.c): a filled image checks intact, a byte
 * written just before, just after, or inside the padding is found at its exact offset, and
 * poisoned data reads as GRD_POISON_BITS, for data sizes around the 4096-byte page. */
#include <string.h>

#include "guard.h"
#include "tutil.h"

static const size_t sizes[] = {0, 4, 4092, 4096, 4100};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static size_t padded(size_t n) { return (n + GRD_BYTES - 1) / GRD_BYTES * GRD_BYTES; }

/* An image whose data holds a counting pattern (unlike any guard byte). */
static unsigned char *filled(size_t n)
{
    unsigned char *data = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 7 + 1);
    unsigned char *img = malloc(grd_image_bytes(n));
    ck_assert_ptr_nonnull(img);
    grd_fill(img, n, data);
    ck_assert_int_eq(memcmp(img + GRD_BYTES, data, n), 0);
    free(data);
    return img;
}

/* Flips the byte at `off` from the data start and expects grd_check to report exactly it. */
static void expect_damage_at(size_t n, long off)
{
    unsigned char *img = filled(n);
    img[(long)GRD_BYTES + off] ^= 0xff;
    long got = 12345;
    ck_assert_int_eq(grd_check(img, n, &got), 1);
    ck_assert_int_eq(got, off);
    free(img);
}

START_TEST(image_size_is_guards_plus_padded_data)
{
    for (size_t s = 0; s < NSIZES; s++)
        ck_assert_uint_eq(grd_image_bytes(sizes[s]), 2 * GRD_BYTES + padded(sizes[s]));
    ck_assert_uint_eq(grd_image_bytes(4100), 3 * 4096 + 4096);
    ck_assert_uint_eq(grd_image_bytes(0), 2 * 4096);
}
END_TEST

START_TEST(fresh_image_is_intact)
{
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned char *img = filled(sizes[s]);
        long off = 777;
        ck_assert_int_eq(grd_check(img, sizes[s], &off), 0);
        ck_assert_int_eq(off, 777);
        free(img);
    }
}
END_TEST

START_TEST(writes_inside_the_data_are_not_damage)
{
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned char *img = filled(sizes[s]);
        memset(img + GRD_BYTES, 0, sizes[s]);
        long off;
        ck_assert_int_eq(grd_check(img, sizes[s], &off), 0);
        free(img);
    }
}
END_TEST

START_TEST(write_just_before_the_data_is_found)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (long off = -1; off >= -4; off--)
            expect_damage_at(sizes[s], off);
}
END_TEST

START_TEST(write_at_the_far_start_of_the_front_guard_is_found)
{
    for (size_t s = 0; s < NSIZES; s++)
        expect_damage_at(sizes[s], -(long)GRD_BYTES);
}
END_TEST

START_TEST(write_just_after_the_data_is_found)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (long k = 0; k < 4; k++)
            expect_damage_at(sizes[s], (long)sizes[s] + k);
}
END_TEST

START_TEST(write_inside_the_padding_is_found)
{
    expect_damage_at(4, 5);
    expect_damage_at(4, 4095);
    expect_damage_at(4092, 4093);
    expect_damage_at(4100, 5000);
    expect_damage_at(4100, 8191);
}
END_TEST

START_TEST(write_at_the_last_byte_of_the_back_guard_is_found)
{
    for (size_t s = 0; s < NSIZES; s++)
        expect_damage_at(sizes[s], (long)(padded(sizes[s]) + GRD_BYTES - 1));
}
END_TEST

START_TEST(first_damage_is_reported_when_there_are_several)
{
    unsigned char *img = filled(4100);
    img[GRD_BYTES + 4100 + 10] ^= 1;
    img[GRD_BYTES - 3] ^= 1;
    long off;
    ck_assert_int_eq(grd_check(img, 4100, &off), 1);
    ck_assert_int_eq(off, -3);
    free(img);
}
END_TEST

START_TEST(poisoned_data_reads_poison_bits)
{
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        unsigned char *img = malloc(grd_image_bytes(n));
        ck_assert_ptr_nonnull(img);
        grd_fill(img, n, NULL);
        for (size_t i = 0; i < n / 4; i++) {
            uint32_t bits;
            memcpy(&bits, img + GRD_BYTES + 4 * i, 4);
            ck_assert_uint_eq(bits, GRD_POISON_BITS);
        }
        long off;
        ck_assert_int_eq(grd_check(img, n, &off), 0);
        free(img);
    }
}
END_TEST

START_TEST(guard_bytes_hold_the_guard_pattern)
{
    unsigned char *img = filled(4);
    uint32_t bits;
    memcpy(&bits, img, 4);
    ck_assert_uint_eq(bits, GRD_BITS);
    memcpy(&bits, img + GRD_BYTES - 4, 4);
    ck_assert_uint_eq(bits, GRD_BITS);
    memcpy(&bits, img + GRD_BYTES + 4, 4); /* padding right after the data */
    ck_assert_uint_eq(bits, GRD_BITS);
    free(img);
}
END_TEST

/* A value read from a band, put through arithmetic and written back into one must change
 * the band: on a CPU (lavapipe, the emulator) a quiet NaN pattern would pass through x86
 * arithmetic unchanged and the out-of-bounds write would go unseen. */
START_TEST(guard_pattern_does_not_survive_arithmetic)
{
    uint32_t bits = GRD_BITS, out;
    volatile float guard;
    memcpy((void *)&guard, &bits, 4);
    float sum = guard + 1.0f;
    memcpy(&out, &sum, 4);
    ck_assert(sum != sum);
    ck_assert_uint_ne(out, GRD_BITS);
}
END_TEST

/* --guard-kib: a 16 KiB band sees a write 8 KiB past the data, at its offset; bands are
 * whole pages up to GRD_MAX_BYTES, and the padding stays page-sized. */
START_TEST(a_wider_band_reaches_further)
{
    ck_assert_int_eq(grd_set_band(6000), -1);
    ck_assert_int_eq(grd_set_band(0), -1);
    ck_assert_int_eq(grd_set_band((size_t)GRD_MAX_BYTES + GRD_BYTES), -1);
    ck_assert_int_eq(grd_set_band(16384), 0);
    ck_assert_uint_eq(grd_band(), 16384);
    ck_assert_uint_eq(grd_image_bytes(4100), 2 * 16384 + 8192);
    unsigned char *img = malloc(grd_image_bytes(4100));
    ck_assert_ptr_nonnull(img);
    grd_fill(img, 4100, NULL);
    long off;
    ck_assert_int_eq(grd_check(img, 4100, &off), 0);
    img[16384 + 4100 + 8192] ^= 1;
    ck_assert_int_eq(grd_check(img, 4100, &off), 1);
    ck_assert_int_eq(off, 4100 + 8192);
    img[16384 + 4100 + 8192] ^= 1;
    img[100] ^= 1;
    ck_assert_int_eq(grd_check(img, 4100, &off), 1);
    ck_assert_int_eq(off, 100 - 16384);
    free(img);
    ck_assert_int_eq(grd_set_band(GRD_BYTES), 0);
}
END_TEST

/* Under compute-sanitizer: the image is the data alone, so the allocation ends where it does. */
START_TEST(exact_images_are_the_data_alone)
{
    grd_set_exact();
    ck_assert_uint_eq(grd_band(), 0);
    ck_assert_uint_eq(grd_image_bytes(4100), 4100);
    ck_assert_uint_eq(grd_image_bytes(0), 0);
    float data[3] = {1, 2, 3}, img[3] = {0};
    grd_fill(img, sizeof data, data);
    ck_assert_mem_eq(img, data, sizeof data);
    long off;
    ck_assert_int_eq(grd_check(img, sizeof data, &off), 0);
    grd_fill(img, sizeof img, NULL);
    uint32_t bits;
    memcpy(&bits, &img[2], 4);
    ck_assert_uint_eq(bits, GRD_POISON_BITS);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("guard");
    TCase *t = tcase_create("guard");
    tcase_add_test(t, image_size_is_guards_plus_padded_data);
    tcase_add_test(t, fresh_image_is_intact);
    tcase_add_test(t, writes_inside_the_data_are_not_damage);
    tcase_add_test(t, write_just_before_the_data_is_found);
    tcase_add_test(t, write_at_the_far_start_of_the_front_guard_is_found);
    tcase_add_test(t, write_just_after_the_data_is_found);
    tcase_add_test(t, write_inside_the_padding_is_found);
    tcase_add_test(t, write_at_the_last_byte_of_the_back_guard_is_found);
    tcase_add_test(t, first_damage_is_reported_when_there_are_several);
    tcase_add_test(t, poisoned_data_reads_poison_bits);
    tcase_add_test(t, guard_bytes_hold_the_guard_pattern);
    tcase_add_test(t, guard_pattern_does_not_survive_arithmetic);
    tcase_add_test(t, a_wider_band_reaches_further);
    tcase_add_test(t, exact_images_are_the_data_alone); /* last: exact mode stays on */
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
