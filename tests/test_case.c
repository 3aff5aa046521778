/* test_case.c: the case catalogue parser (case.c): valid lines, list expansion and name
 * templates, defaults, includes from real files, and every malformed form failing with a
 * message that starts with the right "file:line:". */
#include <string.h>
#include <sys/stat.h>

#include "case.h"
#include "tutil.h"

static const struct hb_case *find(const struct case_set *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->c[i].name, name))
            return &set->c[i];
    ck_abort_msg("no case named %s", name);
    return NULL;
}

static void parse_ok(const char *text, struct case_set *set)
{
    struct hb_err err = {{0}};
    int rc = case_parse_text("t.cases", text, set, &err);
    ck_assert_msg(rc == 0, "parse failed: %s", err.msg);
}

START_TEST(single_sgemm_line_sets_every_field)
{
    struct case_set set = {0};
    parse_ok("sgemm sq M=3 N=4 K=5 dist=exact seed=42\n", &set);
    ck_assert_int_eq(set.n, 1);
    const struct hb_case *c = &set.c[0];
    ck_assert_int_eq(c->op, OP_SGEMM);
    ck_assert_str_eq(c->name, "sq");
    ck_assert_int_eq(c->M, 3);
    ck_assert_int_eq(c->N, 4);
    ck_assert_int_eq(c->K, 5);
    ck_assert_int_eq(c->dist, DIST_EXACT);
    ck_assert_uint_eq(c->seed, 42);
    ck_assert_uint_eq(c->specials, 0);
    ck_assert_str_eq(c->file, "t.cases");
    ck_assert_int_eq(c->line, 1);
    case_set_free(&set);
    ck_assert_ptr_null(set.c);
    ck_assert_int_eq(set.n, 0);
}
END_TEST

START_TEST(lists_expand_to_the_cross_product_with_templated_names)
{
    struct case_set set = {0};
    parse_ok("# comment line\n\n"
             "sgemm g_{M}x{N}x{K}_{dist} M=1,2 N=3 K=0,5 dist=exact,uniform   # trailing comment\n",
             &set);
    ck_assert_int_eq(set.n, 8);
    /* M varies slowest, dist fastest. */
    ck_assert_str_eq(set.c[0].name, "g_1x3x0_exact");
    ck_assert_str_eq(set.c[1].name, "g_1x3x0_uniform");
    ck_assert_str_eq(set.c[2].name, "g_1x3x5_exact");
    ck_assert_str_eq(set.c[7].name, "g_2x3x5_uniform");
    const struct hb_case *c = find(&set, "g_2x3x0_exact");
    ck_assert_int_eq(c->M, 2);
    ck_assert_int_eq(c->N, 3);
    ck_assert_int_eq(c->K, 0);
    ck_assert_int_eq(c->dist, DIST_EXACT);
    ck_assert_int_eq(c->line, 3);
    case_set_free(&set);
}
END_TEST

START_TEST(reduce_line_defaults_to_uniform)
{
    struct case_set set = {0};
    parse_ok("reduce r{n} n=0,1,1000003\n", &set);
    ck_assert_int_eq(set.n, 3);
    const struct hb_case *c = find(&set, "r1000003");
    ck_assert_int_eq(c->op, OP_REDUCE);
    ck_assert_int_eq(c->n, 1000003);
    ck_assert_int_eq(c->dist, DIST_UNIFORM);
    ck_assert_int_eq(c->M + c->N + c->K, 0);
    ck_assert_int_eq(find(&set, "r0")->n, 0);
    case_set_free(&set);
}
END_TEST

START_TEST(default_seed_is_stable_and_differs_by_name)
{
    const char *text = "sgemm a M=1 N=1 K=1\nsgemm b M=1 N=1 K=1\n";
    struct case_set one = {0}, two = {0};
    parse_ok(text, &one);
    parse_ok(text, &two);
    ck_assert_uint_eq(one.c[0].seed, two.c[0].seed);
    ck_assert_uint_eq(one.c[1].seed, two.c[1].seed);
    ck_assert_uint_ne(one.c[0].seed, one.c[1].seed);
    case_set_free(&one);
    case_set_free(&two);
}
END_TEST

START_TEST(explicit_seed_is_kept_for_every_expanded_case)
{
    struct case_set set = {0};
    parse_ok("reduce r{n} n=1,2 seed=18446744073709551615\n", &set);
    ck_assert_uint_eq(set.c[0].seed, UINT64_MAX);
    ck_assert_uint_eq(set.c[1].seed, UINT64_MAX);
    case_set_free(&set);
}
END_TEST

START_TEST(quoted_note_keeps_spaces_and_hash)
{
    struct case_set set = {0};
    parse_ok("sgemm nanrow M=2 N=2 K=2 dist=special special=nan,negzero "
             "note=\"NaN in A row 0 # must reach C row 0\"  # a real comment\n",
             &set);
    ck_assert_int_eq(set.n, 1);
    ck_assert_str_eq(set.c[0].note, "NaN in A row 0 # must reach C row 0");
    ck_assert_int_eq(set.c[0].dist, DIST_SPECIAL);
    ck_assert_uint_eq(set.c[0].specials, SPECIAL_NAN | SPECIAL_NEGZERO);
    case_set_free(&set);
}
END_TEST

START_TEST(special_applies_when_dist_lists_special_among_others)
{
    struct case_set set = {0};
    parse_ok("reduce s_{dist} n=8 dist=uniform,special special=inf,subnormal\n", &set);
    ck_assert_int_eq(set.n, 2);
    ck_assert_int_eq(find(&set, "s_special")->dist, DIST_SPECIAL);
    ck_assert_uint_eq(find(&set, "s_special")->specials, SPECIAL_INF | SPECIAL_SUBNORMAL);
    case_set_free(&set);
}
END_TEST

START_TEST(appends_to_an_existing_set)
{
    struct case_set set = {0};
    parse_ok("sgemm a M=1 N=1 K=1\n", &set);
    parse_ok("sgemm b M=1 N=1 K=1", &set); /* no final newline */
    ck_assert_int_eq(set.n, 2);
    ck_assert_str_eq(set.c[1].name, "b");
    case_set_free(&set);
}
END_TEST

START_TEST(include_reads_a_file_relative_to_the_includer)
{
    char *dir = t_tmpdir();
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    char *inner = t_write(sub, "inner.cases", "reduce deep n=3\n");
    char *inc = t_write(sub, "inc.cases", "reduce inc_r n=7\ninclude inner.cases\n");
    char *top = t_write(dir, "top.cases", "sgemm first M=1 N=1 K=1\ninclude sub/inc.cases\nsgemm last M=2 N=2 K=2\n");
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(case_parse_file(top, &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(set.n, 4);
    ck_assert_str_eq(set.c[0].name, "first");
    ck_assert_str_eq(set.c[1].name, "inc_r");
    ck_assert_str_eq(set.c[2].name, "deep");
    ck_assert_str_eq(set.c[3].name, "last");
    ck_assert_str_eq(set.c[1].file, inc);
    ck_assert_int_eq(set.c[1].line, 1);
    ck_assert_str_eq(set.c[2].file, inner);
    ck_assert_str_eq(set.c[3].file, top);
    ck_assert_int_eq(set.c[3].line, 3);
    case_set_free(&set);
    free(inner), free(inc), free(top);
    t_rmtree(dir);
}
END_TEST

/* The bad line is line 3, after a comment and a good case. */
static void expect_error_in(const char *path, const char *text, int line, const char *needle)
{
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(case_parse_text(path, text, &set, &err) == -1, "accepted: %s", text);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
    ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' does not start with '%s'", err.msg, prefix);
    ck_assert_msg(strstr(err.msg, needle), "'%s' does not say '%s'", err.msg, needle);
    case_set_free(&set);
}

static void expect_error(const char *bad_line, const char *needle)
{
    char text[8192];
    snprintf(text, sizeof text, "# catalogue\nsgemm ok M=1 N=1 K=1\n%s\nsgemm after M=1 N=1 K=1\n", bad_line);
    expect_error_in("t.cases", text, 3, needle);
}

START_TEST(strided_line_defaults_to_one_spare_element_per_row)
{
    struct case_set set = {0};
    parse_ok("sgemm_strided s M=3 N=4 K=5\nsgemm_strided t M=3 N=4 K=5 lda=9 ldb=4 ldc=7\n", &set);
    ck_assert_int_eq(set.n, 2);
    ck_assert_int_eq(set.c[0].op, OP_SGEMM_STRIDED);
    ck_assert_int_eq(set.c[0].lda, 6);
    ck_assert_int_eq(set.c[0].ldb, 5);
    ck_assert_int_eq(set.c[0].ldc, 5);
    ck_assert_int_eq(set.c[1].lda, 9);
    ck_assert_int_eq(set.c[1].ldb, 4);
    ck_assert_int_eq(set.c[1].ldc, 7);
    case_set_free(&set);
}
END_TEST

START_TEST(strided_row_shorter_than_the_stride_is_an_error)
{
    expect_error("sgemm_strided x M=2 N=8 K=5 lda=4", "lda=4 is shorter than a row (5)");
    expect_error("sgemm_strided x M=2 N=8 K=5 ldc=7", "ldc=7 is shorter than a row (8)");
    /* Leading dimensions list like sizes: the name must then tell the cases apart. */
    expect_error("sgemm_strided x M=2 N=8 K=5 lda=6,7", "put {M} {N} {K} {n} or {dist}");
    expect_error("sgemm x M=2 N=8 K=5 lda=6", "unknown key 'lda'");
}
END_TEST

START_TEST(empty_quoted_name_is_an_error) { expect_error("sgemm \"\" M=1 N=1 K=1", "needs a case name"); }
END_TEST

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
    expect_error("sgemm s_{M} M=1,2 N=1,2 K=1", "put {M} {N} {K} {n} or {dist}");
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_text("t.cases", "sgemm_strided s_{lda} M=2 N=8 K=5 lda=6,7\n", &set, &err), 0);
    ck_assert_int_eq(set.n, 2);
    ck_assert_str_eq(set.c[1].name, "s_7");
    ck_assert_int_eq(set.c[1].ldb, 9);
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

START_TEST(dist_names_round_trip)
{
    ck_assert_str_eq(case_dist_name(DIST_EXACT), "exact");
    ck_assert_str_eq(case_dist_name(DIST_UNIFORM), "uniform");
    ck_assert_str_eq(case_dist_name(DIST_CANCEL), "cancel");
    ck_assert_str_eq(case_dist_name(DIST_SPECIAL), "special");
    ck_assert_str_eq(case_dist_name(DIST_COUNT), "?");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("case");
    TCase *ok = tcase_create("valid");
    tcase_add_test(ok, single_sgemm_line_sets_every_field);
    tcase_add_test(ok, strided_line_defaults_to_one_spare_element_per_row);
    tcase_add_test(ok, strided_row_shorter_than_the_stride_is_an_error);
    tcase_add_test(ok, empty_quoted_name_is_an_error);
    tcase_add_test(ok, lists_expand_to_the_cross_product_with_templated_names);
    tcase_add_test(ok, reduce_line_defaults_to_uniform);
    tcase_add_test(ok, default_seed_is_stable_and_differs_by_name);
    tcase_add_test(ok, explicit_seed_is_kept_for_every_expanded_case);
    tcase_add_test(ok, quoted_note_keeps_spaces_and_hash);
    tcase_add_test(ok, special_applies_when_dist_lists_special_among_others);
    tcase_add_test(ok, appends_to_an_existing_set);
    tcase_add_test(ok, include_reads_a_file_relative_to_the_includer);
    tcase_add_test(ok, dist_names_round_trip);
    suite_add_tcase(s, ok);
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
    tcase_add_test(bad, include_without_a_file_is_an_error);
    tcase_add_test(bad, include_loop_stops_at_the_depth_limit);
    tcase_add_test(bad, include_nests_eight_deep_but_not_nine);
    tcase_add_test(bad, nul_byte_in_a_file_is_an_error_at_its_line);
    tcase_add_test(bad, missing_top_file_is_an_error);
    suite_add_tcase(s, bad);
    return s;
}

int main(void) { return t_run(suite()); }
