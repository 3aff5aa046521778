/* SPDX-License-Identifier: MIT */
/* test_case.c: the case catalogue parser (case.c): valid lines, list expansion and name
 * templates, defaults, strided leading dimensions and includes from real files (the
 * malformed forms are test_case_errors.c's). */
#include <string.h>
#include <sys/stat.h>

#include "case.h"
#include "case_fixture.h"
#include "op_fixture.h"
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
    ck_assert_int_eq(T_SIZE(c, "M"), 3);
    ck_assert_int_eq(T_SIZE(c, "N"), 4);
    ck_assert_int_eq(T_SIZE(c, "K"), 5);
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
    ck_assert_int_eq(T_SIZE(c, "M"), 2);
    ck_assert_int_eq(T_SIZE(c, "N"), 3);
    ck_assert_int_eq(T_SIZE(c, "K"), 0);
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
    ck_assert_int_eq(T_SIZE(c, "n"), 1000003);
    ck_assert_int_eq(c->dist, DIST_UNIFORM);
    ck_assert_int_eq(T_SIZE(c, "M") + T_SIZE(c, "N") + T_SIZE(c, "K"), 0);
    ck_assert_int_eq(T_SIZE(find(&set, "r0"), "n"), 0);
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

START_TEST(strided_line_defaults_to_one_spare_element_per_row)
{
    struct case_set set = {0};
    parse_ok("sgemm_strided s M=3 N=4 K=5\nsgemm_strided t M=3 N=4 K=5 lda=9 ldb=4 ldc=7\n", &set);
    ck_assert_int_eq(set.n, 2);
    ck_assert_int_eq(set.c[0].op, OP_SGEMM_STRIDED);
    ck_assert_int_eq(T_SIZE(&set.c[0], "lda"), 6);
    ck_assert_int_eq(T_SIZE(&set.c[0], "ldb"), 5);
    ck_assert_int_eq(T_SIZE(&set.c[0], "ldc"), 5);
    ck_assert_int_eq(T_SIZE(&set.c[1], "lda"), 9);
    ck_assert_int_eq(T_SIZE(&set.c[1], "ldb"), 4);
    ck_assert_int_eq(T_SIZE(&set.c[1], "ldc"), 7);
    case_set_free(&set);
}
END_TEST

START_TEST(strided_row_shorter_than_the_stride_is_an_error)
{
    expect_error("sgemm_strided x M=2 N=8 K=5 lda=4", "lda=4 is shorter than a row (5)");
    expect_error("sgemm_strided x M=2 N=8 K=5 ldc=7", "ldc=7 is shorter than a row (8)");
    /* Leading dimensions list like sizes: the name must then tell the cases apart. */
    expect_error("sgemm_strided x M=2 N=8 K=5 lda=6,7", "put {M} {N} {K} {lda} {ldb} {ldc} or {dist}");
    expect_error("sgemm x M=2 N=8 K=5 lda=6", "unknown key 'lda'");
}
END_TEST

START_TEST(empty_quoted_name_is_an_error) { expect_error("sgemm \"\" M=1 N=1 K=1", "needs a case name"); }
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
    return s;
}

int main(void) { return t_run(suite()); }
