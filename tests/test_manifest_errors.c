/* SPDX-License-Identifier: MIT */
/* test_manifest_errors.c: kernel manifests (manifest.c) that are malformed: each bad key,
 * value, section line or file fails at the right file:line with a message saying what is
 * wrong, starting from a base kernel that is itself valid. */
#include <string.h>

#include "manifest.h"
#include "manifest_fixture.h"
#include "tutil.h"

/* The valid sgemm kernel with `extra` lines appended (line 8 on) or `drop` removed. */
static void expect_error(const char *drop, const char *extra, int line, const char *needle)
{
    char text[8192] = "";
    const char *base[] = {"[k]",       "op = sgemm",    "lang = cuda",     "source = sg.cu",
                          "entry = e", "block = 16 16", "grid = N/16 M/16"};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        if (drop && !strncmp(base[i], drop, strlen(drop)))
            strcat(text, "# dropped\n");
        else
            strcat(strcat(text, base[i]), "\n");
    }
    strcat(text, extra);
    char *path = t_write(dir, "k.manifest", text);
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == -1, "accepted:\n%s", text);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
    ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' does not start with '%s'", err.msg, prefix);
    ck_assert_msg(strstr(err.msg, needle), "'%s' does not say '%s'", err.msg, needle);
    kern_set_free(&set);
    free(path);
}

START_TEST(base_of_the_error_tests_is_valid)
{
    char *path = t_write(dir, "k.manifest",
                         "[k]\nop = sgemm\nlang = cuda\nsource = sg.cu\nentry = e\n"
                         "block = 16 16\ngrid = N/16 M/16\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(set.k[0].any_width, 1);
    kern_set_free(&set);
    free(path);
}
END_TEST

START_TEST(unknown_key_is_an_error) { expect_error(NULL, "colour = blue\n", 8, "unknown key 'colour'"); }
END_TEST

START_TEST(missing_required_keys_are_errors)
{
    expect_error("op", "", 1, "has no 'op'");
    expect_error("lang", "", 1, "has no 'lang'");
    expect_error("source", "", 1, "has no 'source'");
    expect_error("entry", "", 1, "has no 'entry'");
    expect_error("block", "", 1, "has no 'block'");
    expect_error("grid", "", 1, "has no 'grid'");
}
END_TEST

START_TEST(missing_key_is_reported_for_the_right_kernel)
{
    expect_error(NULL, "\n[second]\nop = sgemm\n", 9, "kernel [second] has no 'lang'");
}
END_TEST

START_TEST(reduce_needs_chunk)
{
    char *path = t_write(dir, "r.manifest",
                         "[r]\nop = reduce\nlang = cuda\nsource = sg.cu\nentry = e\n"
                         "block = 64\ngrid = n/64\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(kern_parse_file(path, &set, &err), -1);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:1: kernel [r] has no 'chunk' (or partials = 1)", path);
    ck_assert_str_eq(err.msg, prefix);
    kern_set_free(&set);
    free(path);
}
END_TEST

START_TEST(chunk_on_sgemm_is_an_error) { expect_error(NULL, "chunk = 64\n", 8, "chunk applies to reduce only"); }
END_TEST

START_TEST(bad_grid_is_an_error)
{
    expect_error("grid", "grid = X/16\n", 8, "grid term 'X/16'");
    expect_error("grid", "grid = n/16\n", 8, "variables for sgemm are M, N, K");
    expect_error("grid", "grid = Nx/16\n", 8, "grid term");
    expect_error("grid", "grid = N/0\n", 8, "divisor");
    expect_error("grid", "grid = N/x\n", 8, "divisor");
    expect_error("grid", "grid = N/-4\n", 8, "divisor");
    expect_error("grid", "grid = 0\n", 8, "expected INT, VAR or VAR/INT");
    expect_error("grid", "grid = 1 1 1 1\n", 8, "at most 3");
    expect_error("grid", "grid =\n", 8, "has no value");
}
END_TEST

START_TEST(bad_block_is_an_error)
{
    expect_error("block", "block = 64 64\n", 8, "1 to 1024 threads in all");
    expect_error("block", "block = 2048\n", 8, "block = 2048");
    expect_error("block", "block = 0\n", 8, "block = 0");
    expect_error("block", "block = 1 1 1 1\n", 8, "block = 1 1 1 1");
    expect_error("block", "block = 8x8\n", 8, "block = 8x8");
}
END_TEST

START_TEST(bad_widths_are_errors)
{
    expect_error(NULL, "widths = 3\n", 8, "powers of two");
    expect_error(NULL, "widths = 32 48\n", 8, "powers of two");
    expect_error(NULL, "widths = 0\n", 8, "powers of two");
    expect_error(NULL, "widths = 1 2 4 8 16 32 64 128 256\n", 8, "more than 8");
    expect_error(NULL, "widths = all\n", 8, "powers of two");
}
END_TEST

START_TEST(bad_expect_class_is_an_error)
{
    expect_error(NULL, "expect = wrongish\n", 8, "expect = wrongish");
    expect_error(NULL, "expect = oob+bogus\n", 8, "expect = oob+bogus");
}
END_TEST

START_TEST(bad_op_and_lang_are_errors)
{
    expect_error("op", "op = gemm\n", 8, "op = gemm");
    expect_error("lang", "lang = opencl\n", 8, "lang = opencl");
    expect_error("entry", "entry =\n", 8, "'entry' has no value");
}
END_TEST

START_TEST(unreadable_source_is_an_error)
{
    expect_error("source", "source = missing.cu\n", 8, "missing.cu: No such file");
}
END_TEST

START_TEST(key_before_section_is_an_error)
{
    char *path = t_write(dir, "pre.manifest", "# header\nop = sgemm\n[k]\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(kern_parse_file(path, &set, &err), -1);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:2: key before the first [kernel_name]", path);
    ck_assert_str_eq(err.msg, prefix);
    kern_set_free(&set);
    free(path);
}
END_TEST

START_TEST(duplicate_key_is_an_error)
{
    expect_error(NULL, "entry = f\n", 8, "'entry' given twice for kernel [k]");
    expect_error(NULL, "note = a\nnote = b\n", 9, "'note' given twice");
}
END_TEST

START_TEST(duplicate_kernel_and_bad_section_lines_are_errors)
{
    expect_error(NULL, "[k]\n", 8, "kernel [k] is already defined at line 1");
    expect_error(NULL, "[]\n", 8, "expected [kernel_name]");
    expect_error(NULL, "[open\n", 8, "expected [kernel_name]");
    expect_error(NULL, "[a] b\n", 8, "expected [kernel_name]");
    expect_error(NULL, "just words\n", 8, "expected key = value");
}
END_TEST

START_TEST(line_too_long_is_an_error)
{
    char extra[5000];
    memset(extra, 'x', sizeof extra - 2);
    memcpy(extra, "note = ", 7);
    extra[sizeof extra - 2] = '\n';
    extra[sizeof extra - 1] = 0;
    expect_error(NULL, extra, 8, "line longer than");
}
END_TEST

START_TEST(empty_or_missing_file_is_an_error)
{
    char *path = t_write(dir, "empty.manifest", "# nothing\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(kern_parse_file(path, &set, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "no [kernel_name] section"));
    ck_assert_int_eq(kern_parse_file("/nonexistent/x.manifest", &set, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/x.manifest: cannot open"));
    kern_set_free(&set);
    free(path);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("manifest_errors");
    TCase *bad = tcase_create("malformed");
    tcase_add_checked_fixture(bad, setup, teardown);
    tcase_add_test(bad, base_of_the_error_tests_is_valid);
    tcase_add_test(bad, unknown_key_is_an_error);
    tcase_add_test(bad, missing_required_keys_are_errors);
    tcase_add_test(bad, missing_key_is_reported_for_the_right_kernel);
    tcase_add_test(bad, reduce_needs_chunk);
    tcase_add_test(bad, chunk_on_sgemm_is_an_error);
    tcase_add_test(bad, bad_grid_is_an_error);
    tcase_add_test(bad, bad_block_is_an_error);
    tcase_add_test(bad, bad_widths_are_errors);
    tcase_add_test(bad, bad_expect_class_is_an_error);
    tcase_add_test(bad, bad_op_and_lang_are_errors);
    tcase_add_test(bad, unreadable_source_is_an_error);
    tcase_add_test(bad, key_before_section_is_an_error);
    tcase_add_test(bad, duplicate_key_is_an_error);
    tcase_add_test(bad, duplicate_kernel_and_bad_section_lines_are_errors);
    tcase_add_test(bad, line_too_long_is_an_error);
    tcase_add_test(bad, empty_or_missing_file_is_an_error);
    suite_add_tcase(s, bad);
    return s;
}

int main(void) { return t_run(suite()); }
