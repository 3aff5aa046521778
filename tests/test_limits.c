/* SPDX-License-Identifier: MIT */
/* test_limits.c: the bounds on what the harness reads (issue 17.13), across case.c and the
 * manifest files: an include of /dev/zero is refused unread, a binary ends at its first NUL,
 * a source that is a folder or a device is an error at load, a kernel name longer than a
 * result row holds is an error, a grid's ceiling cannot overflow, a case line and a catalogue
 * expand to a bounded number of cases, and a manifest's NUL byte is named as one. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "case.h"
#include "manifest.h"
#include "op_fixture.h"
#include "tutil.h"

static char *dir;

static void setup(void)
{
    dir = t_tmpdir();
    free(t_write(dir, "k.cu", "// a kernel\n"));
}

static void teardown(void) { t_rmtree(dir); }

static int parse_manifest(const char *text, struct hb_err *err)
{
    char *path = t_write(dir, "m.manifest", text);
    struct kern_set set = {0};
    int rc = kern_parse_file(path, &set, err);
    kern_set_free(&set);
    free(path);
    return rc;
}

START_TEST(case_include_of_dev_zero_stops_at_once)
{
    char *path = t_write(dir, "z.cases", "sgemm ok M=1 N=1 K=1\ninclude /dev/zero\n");
    struct case_set set = {0};
    struct hb_err err = {{0}};
    time_t t0 = time(NULL);
    ck_assert_int_eq(case_parse_file(path, &set, &err), -1);
    ck_assert_int_le(time(NULL) - t0, 2);
    ck_assert_msg(strstr(err.msg, "z.cases:2: include /dev/zero: not a regular file"), "%s", err.msg);
    case_set_free(&set);
    free(path);
}
END_TEST

START_TEST(case_file_with_a_nul_names_its_line)
{
    char *path = t_write_n(dir, "nul.cases", "sgemm ok M=1 N=1 K=1\n\nx\0y\n", 26);
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_file(path, &set, &err), -1);
    ck_assert_msg(strstr(err.msg, "nul.cases:3: holds a NUL byte"), "%s", err.msg);
    case_set_free(&set);
    free(path);
}
END_TEST

START_TEST(source_that_is_a_device_or_folder_is_an_error)
{
    static const char head[] = "[k]\nop = sgemm\nlang = cuda\nentry = k\nblock = 16 16\ngrid = N/16 M/16\n";
    char text[512];
    struct hb_err err = {{0}};
    snprintf(text, sizeof text, "%ssource = /dev/zero\n", head);
    ck_assert_int_eq(parse_manifest(text, &err), -1);
    ck_assert_msg(strstr(err.msg, "m.manifest:7: kernel [k]: source /dev/zero is a device"), "%s", err.msg);
    snprintf(text, sizeof text, "%ssource = %s\n", head, dir);
    ck_assert_int_eq(parse_manifest(text, &err), -1);
    ck_assert_msg(strstr(err.msg, "is a folder, not a source file"), "%s", err.msg);
    snprintf(text, sizeof text, "%ssource = k.cu\n", head);
    ck_assert_msg(parse_manifest(text, &err) == 0, "%s", err.msg);
}
END_TEST

START_TEST(kernel_name_longer_than_a_row_holds_is_an_error)
{
    char text[512], name[KERN_MAX_NAME + 2];
    struct hb_err err = {{0}};
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0; /* one byte too long */
    snprintf(text, sizeof text, "[%s]\nop = sgemm\nlang = cuda\nsource = k.cu\nentry = k\nblock = 16 16\ngrid = 1 1\n",
             name);
    ck_assert_int_eq(parse_manifest(text, &err), -1);
    ck_assert_msg(strstr(err.msg, "longer than 63 bytes"), "%s", err.msg);
    name[KERN_MAX_NAME] = 0; /* exactly what a row holds */
    snprintf(text, sizeof text, "[%s]\nop = sgemm\nlang = cuda\nsource = k.cu\nentry = k\nblock = 16 16\ngrid = 1 1\n",
             name);
    ck_assert_msg(parse_manifest(text, &err) == 0, "%s", err.msg);
}
END_TEST

START_TEST(grid_divisor_near_long_max_does_not_overflow)
{
    char *path = t_write(dir, "g.manifest",
                         "[g]\nop = sgemm\nlang = cuda\nsource = k.cu\nentry = k\nblock = 16 16\n"
                         "grid = N/9223372036854775807 M/16 1\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == 0, "%s", err.msg);
    struct hb_case c;
    memset(&c, 0, sizeof c);
    c.op = OP_SGEMM;
    T_SET(&c, "M", 17), T_SET(&c, "N", 33), T_SET(&c, "K", 5);
    unsigned g[3];
    ck_assert_int_eq(kern_grid(&set.k[0], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 1);
    ck_assert_uint_eq(g[1], 2);
    kern_set_free(&set);
    free(path);
}
END_TEST

/* "1,2,...,n" from first on. */
static void list_of(char *out, size_t len, int first, int n)
{
    size_t at = 0;
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%d", i ? "," : "", first + i);
}

START_TEST(case_line_expansion_is_capped)
{
    char l32[200], ld[200], text[1400];
    list_of(l32, sizeof l32, 1, 32);
    list_of(ld, sizeof ld, 40, 32);
    snprintf(text, sizeof text, "sgemm_strided h_{M}_{N}_{K}_{lda}_{ldb}_{ldc} M=%s N=%s K=%s lda=%s ldb=%s ldc=%s\n",
             l32, l32, l32, ld, ld, ld);
    struct case_set set = {0};
    struct hb_err err = {{0}};
    time_t t0 = time(NULL);
    ck_assert_int_eq(case_parse_text("t.cases", text, &set, &err), -1);
    ck_assert_int_le(time(NULL) - t0, 2);
    ck_assert_msg(strstr(err.msg, "t.cases:1: the line's lists expand to 1073741824 cases"), "%s", err.msg);
    ck_assert_int_eq(set.n, 0);
    case_set_free(&set);
}
END_TEST

START_TEST(catalogue_total_is_capped)
{
    /* 32 x 32 x 9 = 9216 cases a line, under the line cap; the eleventh line passes 100000. */
    char l32[200], text[16384];
    list_of(l32, sizeof l32, 1, 32);
    size_t at = 0;
    for (int i = 0; i < 11; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "sgemm l%d_{M}_{N}_{K} M=%s N=%s K=1,2,3,4,5,6,7,8,9\n", i,
                               l32, l32);
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_text("t.cases", text, &set, &err), -1);
    ck_assert_msg(strstr(err.msg, "t.cases:11: the catalogue reaches 101376 cases"), "%s", err.msg);
    case_set_free(&set);
}
END_TEST

START_TEST(manifest_with_a_nul_names_its_line)
{
    static const char text[] = "[k]\nop = sgemm\nlang = cuda\nsource = k.cu\nentry\0 = k\n";
    char *path = t_write_n(dir, "m.manifest", text, sizeof text - 1);
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(kern_parse_file(path, &set, &err), -1);
    ck_assert_msg(strstr(err.msg, "m.manifest:5: holds a NUL byte"), "%s", err.msg);
    kern_set_free(&set);
    free(path);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("limits");
    TCase *t = tcase_create("inputs");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, case_include_of_dev_zero_stops_at_once);
    tcase_add_test(t, case_file_with_a_nul_names_its_line);
    tcase_add_test(t, source_that_is_a_device_or_folder_is_an_error);
    tcase_add_test(t, kernel_name_longer_than_a_row_holds_is_an_error);
    tcase_add_test(t, grid_divisor_near_long_max_does_not_overflow);
    tcase_add_test(t, case_line_expansion_is_capped);
    tcase_add_test(t, catalogue_total_is_capped);
    tcase_add_test(t, manifest_with_a_nul_names_its_line);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
