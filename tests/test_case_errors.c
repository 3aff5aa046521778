/* SPDX-License-Identifier: MIT */
/* test_case_errors.c: the case catalogue parser (case.c) on malformed input: every bad
 * form, bad include and unreadable file fails with a message that starts with the right
 * "file:line:" and says what is wrong. */
#include <string.h>

#include "case.h"
#include "case_fixture.h"
#include "op_fixture.h"
#include "tutil.h"

START_TEST(unknown_op_is_an_error)
{
    expect_error("gemm x M=1 N=1 K=1", "unknown op 'gemm'");
    expect_error("Sgemm x M=1 N=1 K=1", "unknown op");
    expect_error("includes x.cases", "unknown op");
}
END_TEST

START_TEST(missing_name_is_an_error)
{
    expect_error("sgemm", "needs a case name");
    expect_error("sgemm M=1 N=1 K=1", "needs a case name");
    expect_error("reduce n=4", "needs a case name");
}
END_TEST

START_TEST(bad_name_characters_are_an_error) { expect_error("sgemm a/b M=1 N=1 K=1", "may hold only"); }
END_TEST

START_TEST(token_without_equals_is_an_error) { expect_error("sgemm x M=1 N=1 K=1 junk", "'junk' is not key=value"); }
END_TEST

START_TEST(unknown_key_is_an_error)
{
    expect_error("sgemm x M=1 N=1 K=1 colour=red", "unknown key 'colour'");
    expect_error("sgemm x M=1 N=1 K=1 m=1", "unknown key 'm'");
}
END_TEST

START_TEST(key_of_the_other_op_is_an_error)
{
    expect_error("sgemm x M=1 N=1 K=1 n=5", "unknown key 'n' for sgemm");
    expect_error("reduce x n=5 M=1", "unknown key 'M' for reduce");
}
END_TEST

START_TEST(bad_numbers_are_errors)
{
    expect_error("sgemm x M=-1 N=1 K=1", "M=-1");
    expect_error("sgemm x M=1 N=2x K=1", "N=2x");
    expect_error("sgemm x M=1 N=1 K=", "K has no value");
    expect_error("sgemm x M=1 N=1 K=1.5", "K=1.5");
    expect_error("sgemm x M=2147483648 N=1 K=1", "M=2147483648");
    expect_error("reduce x n=1,,-2", "n=1,,-2");
    expect_error("reduce x n=4 seed=-3", "seed=-3");
    expect_error("reduce x n=4 seed=abc", "seed=abc");
}
END_TEST

START_TEST(oversized_matrix_is_an_error) { expect_error("sgemm x M=65536 N=65536 K=1", "more than"); }
END_TEST

START_TEST(duplicate_key_is_an_error)
{
    expect_error("sgemm x M=1 N=1 K=1 M=2", "M given twice");
    expect_error("reduce x n=1 n=2", "n given twice");
    expect_error("reduce x n=1 dist=exact dist=uniform", "dist given twice");
    expect_error("reduce x n=1 seed=1 seed=2", "seed given twice");
    expect_error("reduce x n=1 note=a note=b", "note given twice");
    expect_error("reduce x n=1 dist=special special=nan special=inf", "special given twice");
}
END_TEST

START_TEST(missing_sizes_are_errors)
{
    expect_error("sgemm x M=1 N=1", "sgemm needs M=, N= and K=");
    expect_error("sgemm x N=1 K=1", "sgemm needs M=, N= and K=");
    expect_error("sgemm x M=1 K=1 dist=exact", "sgemm needs M=, N= and K=");
    expect_error("reduce x dist=exact", "reduce needs n=");
}
END_TEST

START_TEST(special_dist_needs_special_values)
{
    expect_error("reduce x n=4 dist=special", "dist=special needs special=");
    expect_error("reduce x_{dist} n=4 dist=uniform,special", "dist=special needs special=");
}
END_TEST

START_TEST(special_values_need_special_dist)
{
    expect_error("reduce x n=4 special=nan", "special= needs dist=special");
    expect_error("reduce x n=4 dist=exact special=nan", "special= needs dist=special");
}
END_TEST

START_TEST(unknown_dist_and_special_are_errors)
{
    expect_error("reduce x n=4 dist=gaussian", "unknown dist 'gaussian'");
    expect_error("reduce x n=4 dist=", "dist has no value");
    expect_error("reduce x n=4 dist=special special=qnan", "unknown special value 'qnan'");
    expect_error("reduce x n=4 dist=special special=", "special has no value");
}
END_TEST

START_TEST(unterminated_quote_is_an_error)
{
    expect_error("reduce x n=4 note=\"open ended", "unterminated quote");
    expect_error("\"reduce x n=4", "unterminated quote");
    expect_error("reduce \"x n=4", "unterminated quote");
}
END_TEST

START_TEST(duplicate_case_name_is_an_error)
{
    expect_error("sgemm ok M=2 N=2 K=2", "case name 'ok' is already used at t.cases:2");
    expect_error("reduce ok n=2", "already used");
}
END_TEST

START_TEST(template_without_the_varying_size_is_an_error)
{
    expect_error("sgemm s_{M} M=1,2 N=1,2 K=1", "put {M} {N} {K} or {dist}");
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_text("t.cases", "sgemm_strided s_{lda} M=2 N=8 K=5 lda=6,7\n", &set, &err), 0);
    ck_assert_int_eq(set.n, 2);
    ck_assert_str_eq(set.c[1].name, "s_7");
    ck_assert_int_eq(T_SIZE(&set.c[1], "ldb"), 9);
    case_set_free(&set);
    expect_error("reduce r n=1,2", "case name 'r' is already used at t.cases:3");
}
END_TEST

START_TEST(line_too_long_is_an_error)
{
    char *text = malloc(6000);
    ck_assert_ptr_nonnull(text);
    strcpy(text, "sgemm a M=1 N=1 K=1\nreduce long n=4 note=");
    size_t len = strlen(text);
    memset(text + len, 'x', 5000);
    strcpy(text + len + 5000, "\n");
    expect_error_in("t.cases", text, 2, "line longer than");
    free(text);
}
END_TEST

START_TEST(include_of_a_missing_file_names_the_include_line)
{
    char *dir = t_tmpdir();
    char *top = t_write(dir, "top.cases", "sgemm a M=1 N=1 K=1\n\ninclude nope.cases\n");
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_file(top, &set, &err), -1);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:3: include %s/nope.cases: cannot open", top, dir);
    ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' vs '%s'", err.msg, prefix);
    case_set_free(&set);
    free(top);
    t_rmtree(dir);
}
END_TEST

/* However long the missing file's name, the message starts with the include line: also when
 * it is cut right after the name, inside the ": " that follows (found by the fuzzer). */
START_TEST(include_of_a_long_missing_name_still_names_the_include_line)
{
    static char text[1200];
    for (size_t len = 1000; len < 1040; len++) {
        memcpy(text, "include ", 8);
        memset(text + 8, 'n', len);
        text[8 + len] = 0;
        struct case_set set = {0};
        struct hb_err err = {{0}};
        ck_assert_int_eq(case_parse_text("t.cases", text, &set, &err), -1);
        ck_assert_msg(!strncmp(err.msg, "t.cases:1: include ./nnn", 24), "name of %zu bytes: '%.60s'", len, err.msg);
        case_set_free(&set);
    }
}
END_TEST

START_TEST(include_without_a_file_is_an_error)
{
    expect_error("include", "include needs a file name");
    expect_error("include   # only a comment", "include needs a file name");
}
END_TEST

START_TEST(include_loop_stops_at_the_depth_limit)
{
    char *dir = t_tmpdir();
    char *a = t_write(dir, "a.cases", "# a\ninclude b.cases\n");
    char *b = t_write(dir, "b.cases", "# b\n\ninclude a.cases\n");
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_file(a, &set, &err), -1);
    /* The loop is a.cases:2 -> b.cases:3 -> a.cases:2 ...; the message names one of those lines. */
    char pa[300], pb[300];
    snprintf(pa, sizeof pa, "%s:2:", a);
    snprintf(pb, sizeof pb, "%s:3:", b);
    ck_assert_msg(!strncmp(err.msg, pa, strlen(pa)) || !strncmp(err.msg, pb, strlen(pb)), "'%s'", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "deeper"));
    case_set_free(&set);
    free(a), free(b);
    t_rmtree(dir);
}
END_TEST

START_TEST(include_nests_eight_deep_but_not_nine)
{
    char *dir = t_tmpdir();
    char *paths[10];
    for (int i = 0; i < 10; i++) {
        char name[32], text[64];
        snprintf(name, sizeof name, "f%d.cases", i);
        if (i < 9)
            snprintf(text, sizeof text, "reduce r%d n=1\ninclude f%d.cases\n", i, i + 1);
        else
            snprintf(text, sizeof text, "reduce r9 n=1\n");
        paths[i] = t_write(dir, name, text);
    }
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(case_parse_file(paths[1], &set, &err) == 0, "%s", err.msg); /* f1 .. f9: 8 deep */
    ck_assert_int_eq(set.n, 9);
    case_set_free(&set);
    ck_assert_int_eq(case_parse_file(paths[0], &set, &err), -1);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:2: include f9.cases", paths[8]);
    ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' vs '%s'", err.msg, prefix);
    case_set_free(&set);
    for (int i = 0; i < 10; i++)
        free(paths[i]);
    t_rmtree(dir);
}
END_TEST

START_TEST(nul_byte_in_a_file_is_an_error_at_its_line)
{
    char *dir = t_tmpdir();
    static const char text[] = "sgemm a M=1 N=1 K=1\nreduce b n=\0004\n";
    char *path = t_write_n(dir, "nul.cases", text, sizeof text - 1);
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_file(path, &set, &err), -1);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:2:", path);
    ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' vs '%s'", err.msg, prefix);
    ck_assert_ptr_nonnull(strstr(err.msg, "NUL"));
    case_set_free(&set);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(missing_top_file_is_an_error)
{
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_file("/nonexistent/x.cases", &set, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/x.cases: cannot open"));
    case_set_free(&set);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("case_errors");
    TCase *bad = tcase_create("malformed");
    tcase_add_test(bad, unknown_op_is_an_error);
    tcase_add_test(bad, missing_name_is_an_error);
    tcase_add_test(bad, bad_name_characters_are_an_error);
    tcase_add_test(bad, token_without_equals_is_an_error);
    tcase_add_test(bad, unknown_key_is_an_error);
    tcase_add_test(bad, key_of_the_other_op_is_an_error);
    tcase_add_test(bad, bad_numbers_are_errors);
    tcase_add_test(bad, oversized_matrix_is_an_error);
    tcase_add_test(bad, duplicate_key_is_an_error);
    tcase_add_test(bad, missing_sizes_are_errors);
    tcase_add_test(bad, special_dist_needs_special_values);
    tcase_add_test(bad, special_values_need_special_dist);
    tcase_add_test(bad, unknown_dist_and_special_are_errors);
    tcase_add_test(bad, unterminated_quote_is_an_error);
    tcase_add_test(bad, duplicate_case_name_is_an_error);
    tcase_add_test(bad, template_without_the_varying_size_is_an_error);
    tcase_add_test(bad, line_too_long_is_an_error);
    tcase_add_test(bad, include_of_a_missing_file_names_the_include_line);
    tcase_add_test(bad, include_of_a_long_missing_name_still_names_the_include_line);
    tcase_add_test(bad, include_without_a_file_is_an_error);
    tcase_add_test(bad, include_loop_stops_at_the_depth_limit);
    tcase_add_test(bad, include_nests_eight_deep_but_not_nine);
    tcase_add_test(bad, nul_byte_in_a_file_is_an_error_at_its_line);
    tcase_add_test(bad, missing_top_file_is_an_error);
    suite_add_tcase(s, bad);
    return s;
}

int main(void) { return t_run(suite()); }
