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
    grd_fill(img, n, data, 0);
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
    ck_assert_int_eq(grd_check(img, n, 0, &got), 1);
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
        ck_assert_int_eq(grd_check(img, sizes[s], 0, &off), 0);
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
        ck_assert_int_eq(grd_check(img, sizes[s], 0, &off), 0);
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
    ck_assert_int_eq(grd_check(img, 4100, 0, &off), 1);
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
        grd_fill(img, n, NULL, 0);
        for (size_t i = 0; i < n / 4; i++) {
            uint32_t bits;
            memcpy(&bits, img + GRD_BYTES + 4 * i, 4);
            ck_assert_uint_eq(bits, GRD_POISON_BITS);
        }
        long off;
        ck_assert_int_eq(grd_check(img, n, 0, &off), 0);
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
    grd_fill(img, 4100, NULL, 0);
    long off;
    ck_assert_int_eq(grd_check(img, 4100, 0, &off), 0);
    img[16384 + 4100 + 8192] ^= 1;
    ck_assert_int_eq(grd_check(img, 4100, 0, &off), 1);
    ck_assert_int_eq(off, 4100 + 8192);
    img[16384 + 4100 + 8192] ^= 1;
    img[100] ^= 1;
    ck_assert_int_eq(grd_check(img, 4100, 0, &off), 1);
    ck_assert_int_eq(off, 100 - 16384);
    free(img);
    ck_assert_int_eq(grd_set_band(GRD_BYTES), 0);
}
END_TEST

/* A transpose off its grid reads past one buffer and writes what it read past another: a
 * plain copy keeps a NaN's bits, so the bands of different arguments must differ, or the
 * damaged band looks whole (seen on the H200 with HeCBench's transposes at 1 x 1). */
START_TEST(a_band_copied_into_another_buffers_band_shows)
{
    size_t n = 4, total = grd_image_bytes(n);
    unsigned char *in = malloc(total), *out = malloc(total);
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    grd_fill(in, n, "abcd", 0);
    grd_fill(out, n, NULL, 1);
    long off;
    ck_assert_int_eq(grd_check(out, n, 1, &off), 0);
    memcpy(out + grd_band() + n, in + grd_band() + n, 4); /* out[1] = in[1], both past the end */
    ck_assert_int_eq(grd_check(out, n, 1, &off), 1);
    ck_assert(off >= 4 && off < 8); /* the first byte that differs, in the word written */
    ck_assert_uint_ne(grd_bits(0), grd_bits(1));
    ck_assert_uint_eq(grd_bits(0), GRD_BITS);
    ck_assert(grd_is_band_payload(grd_bits(5) & 0x003fffffu));
    ck_assert(!grd_is_band_payload(GRD_POISON_BITS & 0x003fffffu));
    free(in), free(out);
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
    grd_fill(img, sizeof data, data, 0);
    ck_assert_mem_eq(img, data, sizeof data);
    long off;
    ck_assert_int_eq(grd_check(img, sizeof data, 0, &off), 0);
    grd_fill(img, sizeof img, NULL, 0);
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
    tcase_add_test(t, a_band_copied_into_another_buffers_band_shows);
    tcase_add_test(t, exact_images_are_the_data_alone); /* last: exact mode stays on */
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
