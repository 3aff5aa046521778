/* SPDX-License-Identifier: MIT */
/* test_sha256.c: the backends' SHA-256 (harness/backends/common/sha256.c, which names the
 * run-time compile cache's products and seals them) against FIPS 180-4's examples and
 * messages whose padding spills into a second block. The backends are no archive of the
 * core, so the file is compiled in here. */
#include "backends/common/sha256.c"
#include "tutil.h"

static void digest_of(const void *data, size_t n, char hex[SHA256_HEX])
{
    struct sha256 s;
    unsigned char d[SHA256_BYTES];
    sha256_init(&s);
    sha256_update(&s, data, n);
    sha256_final(&s, d);
    sha256_hex(d, hex);
}

START_TEST(standard_examples)
{
    char hex[SHA256_HEX];
    digest_of("", 0, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    digest_of("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_of(two, strlen(two), hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(a_million_a_in_pieces)
{
    char a[1001], hex[SHA256_HEX];
    unsigned char d[SHA256_BYTES];
    memset(a, 'a', sizeof a);
    struct sha256 s;
    sha256_init(&s);
    for (int i = 0; i < 1000; i++)
        sha256_update(&s, a, i % 2 ? 999 : 1001); /* pieces that straddle blocks */
    sha256_final(&s, d);
    sha256_hex(d, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(a_file_and_what_is_not_one)
{
    char *dir = t_tmpdir(), *path = t_write(dir, "f", "abc"), err[256] = "";
    struct sha256 s;
    unsigned char d[SHA256_BYTES];
    char hex[SHA256_HEX];
    sha256_init(&s);
    ck_assert_int_eq(sha256_file(&s, path, err, sizeof err), 0);
    sha256_final(&s, d);
    sha256_hex(d, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ck_assert_int_eq(sha256_file(&s, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
    free(path);
    t_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sha256");
    TCase *t = tcase_create("digests");
    tcase_add_test(t, standard_examples);
    tcase_add_test(t, a_million_a_in_pieces);
    tcase_add_test(t, a_file_and_what_is_not_one);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
