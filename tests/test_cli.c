/* SPDX-License-Identifier: MIT */
/* test_cli.c: the option parser (cli.c) through the run command's real table (run_options.c),
 * and result ids (selection.c): --opt=value and --opt value alike, repeats and comma lists,
 * usage errors that name the option, ids printed by --list selecting exactly their result, and
 * --rerun-failed taking exactly the failing rows of a JSON lines file. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonl.h"
#include "report.h"
#include "run.h"
#include "run_options.h"
#include "selection.h"
#include "tutil.h"

/* Parses a NULL-terminated argument list (without the command) as `harness run`. */
static int t_parse(struct run_opts *o, struct hb_err *err, const char *const *args)
{
    char *argv[64] = {"run"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = (char *)args[argc - 1], argc++;
    run_opts_init(o);
    memset(err, 0, sizeof *err);
    return run_parse_options(argc, argv, o, err);
}

START_TEST(opt_equals_value_is_the_same_as_opt_space_value)
{
    struct run_opts a, b;
    struct hb_err err;
    ck_assert_int_eq(t_parse(&a, &err, (const char *[]){"--kernel=cuda/x", "--timeout=7", "--tier=standard", NULL}), 0);
    ck_assert_int_eq(
        t_parse(&b, &err, (const char *[]){"--kernel", "cuda/x", "--timeout", "7", "-t", "standard", NULL}), 0);
    ck_assert_int_eq(a.n_kernel_globs, 1);
    ck_assert_str_eq(a.kernel_globs[0], b.kernel_globs[0]);
    ck_assert(a.timeout_s == 7 && b.timeout_s == 7);
    ck_assert_str_eq(a.tier, "standard");
    ck_assert_str_eq(b.tier, "standard");
    run_opts_free(&a), run_opts_free(&b);
}
END_TEST

START_TEST(repeats_and_comma_lists_accumulate)
{
    struct run_opts o;
    struct hb_err err;
    ck_assert_int_eq(t_parse(&o, &err,
                             (const char *[]){"--kernel", "a", "-k", "b,c", "--width=4,8", "-w", "32", "--backend",
                                              "sim,vulkan", NULL}),
                     0);
    ck_assert_int_eq(o.n_kernel_globs, 3);
    ck_assert_str_eq(o.kernel_globs[2], "c");
    ck_assert_int_eq(o.n_widths, 3);
    ck_assert_int_eq(o.widths[2], 32);
    ck_assert_int_eq(o.n_backends, 2);
    run_opts_free(&o);
}
END_TEST

START_TEST(usage_errors_name_the_option)
{
    struct run_opts o;
    struct hb_err err;
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--frobnicate", NULL}), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "--frobnicate: unknown option"));
    run_opts_free(&o);
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--kernal", "x", NULL}), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "--kernal: unknown option; did you mean --kernel?"));
    run_opts_free(&o);
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--re", "x", NULL}), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "--re: ambiguous: it begins --rerun-failed, --record, --repeats"));
    run_opts_free(&o);
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--timeout", NULL}), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "--timeout: needs a value"));
    run_opts_free(&o);
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--kernel", "a,", NULL}), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "--kernel a,:"));
    run_opts_free(&o);
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"stray", NULL}), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "stray: unexpected argument"));
    run_opts_free(&o);
}
END_TEST

/* Issue 17.13: values that can never run are usage errors, not "nothing ran". */
START_TEST(impossible_widths_and_shards_are_usage_errors)
{
    struct run_opts o;
    struct hb_err err;
    const char *bad[][2] = {{"--width", "7"},   {"--width", "0"},    {"--width", "2048"}, {"--shard", "1/99999999999"},
                            {"--shard", "2/2"}, {"--shard", "1/2x"}, {"--id", "sim::w32"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(t_parse(&o, &err, (const char *[]){bad[i][0], bad[i][1], NULL}), -1);
        ck_assert_ptr_nonnull(strstr(err.msg, bad[i][0]));
        run_opts_free(&o);
    }
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--shard", "3/4", "--width", "64", NULL}), 0);
    ck_assert(o.shard == 3 && o.shards == 4 && o.widths[0] == 64);
    run_opts_free(&o);
}
END_TEST

START_TEST(help_is_not_an_error)
{
    struct run_opts o;
    struct hb_err err;
    ck_assert_int_eq(t_parse(&o, &err, (const char *[]){"--kernel", "x", "--help", NULL}), 1);
    run_opts_free(&o);
}
END_TEST

START_TEST(a_listed_id_selects_exactly_its_result)
{
    char id[256];
    sel_format(id, sizeof id, "sim", 0, 32, "cuda", "sgemm_naive", "edge_15x16x17");
    ck_assert_str_eq(id, "sim:0:w32:cuda/sgemm_naive:edge_15x16x17");
    struct sel_set s = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(sel_parse(&s, id, &err), 0);
    struct sel_key k = {"sim", 0, "SIMT emulator", 32, "cuda", "sgemm_naive", "edge_15x16x17"};
    ck_assert(sel_match(&s, &k));
    struct sel_key other[] = {
        {"vulkan", 0, "SIMT emulator", 32, "cuda", "sgemm_naive", "edge_15x16x17"},
        {"sim", 1, "SIMT emulator", 32, "cuda", "sgemm_naive", "edge_15x16x17"},
        {"sim", 0, "SIMT emulator", 64, "cuda", "sgemm_naive", "edge_15x16x17"},
        {"sim", 0, "SIMT emulator", 32, "hip", "sgemm_naive", "edge_15x16x17"},
        {"sim", 0, "SIMT emulator", 32, "cuda", "sgemm_tiled", "edge_15x16x17"},
        {"sim", 0, "SIMT emulator", 32, "cuda", "sgemm_naive", "edge_15x16x1"},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        ck_assert_msg(!sel_match(&s, &other[i]), "key %zu matched", i);
    /* What the plan asks before it knows the case: the group is still wanted. */
    struct sel_key group = {"sim", 0, "SIMT emulator", 32, "cuda", "sgemm_naive", NULL};
    ck_assert(sel_match(&s, &group));
    sel_free(&s);
}
END_TEST

START_TEST(id_fields_take_globs_and_trailing_fields_are_optional)
{
    struct sel_set s = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(sel_parse(&s, "sim:*:32:cuda/sgemm_*", &err), 0);
    ck_assert_int_eq(sel_parse(&s, "vulkan:llvmpipe*:w8:*:exact_*", &err), 0);
    struct sel_key yes[] = {
        {"sim", 3, "SIMT emulator", 32, "cuda", "sgemm_tiled", "any_case"},
        {"vulkan", 0, "llvmpipe (LLVM 15)", 8, "glsl", "reduce_generic", "exact_3x2x1"},
    };
    struct sel_key no[] = {
        {"sim", 0, "SIMT emulator", 16, "cuda", "sgemm_tiled", "x"},
        {"vulkan", 0, "llvmpipe (LLVM 15)", 8, "glsl", "reduce_generic", "edge_1x2x3"},
    };
    for (size_t i = 0; i < 2; i++) {
        ck_assert_msg(sel_match(&s, &yes[i]), "yes %zu", i);
        ck_assert_msg(!sel_match(&s, &no[i]), "no %zu", i);
    }
    sel_free(&s);
}
END_TEST

START_TEST(rerun_failed_selects_the_failing_rows_exactly)
{
    char *dir = t_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/run.jsonl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    /* A whole run's file: its header, the results, an end record with their count. */
    struct run_header h;
    rep_header_init(&h, 0, NULL);
    jsonl_write_header(f, &h);
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "sim");
    snprintf(r.device, sizeof r.device, "SIMT emulator [a]");
    snprintf(r.lang, sizeof r.lang, "cuda");
    snprintf(r.kernel, sizeof r.kernel, "k");
    r.width = 32;
    const char *cases[] = {"c[1]", "c2", "*"};
    enum hb_verdict verdicts[] = {V_FAIL, V_PASS, V_XPASS};
    for (int i = 0; i < 3; i++) {
        snprintf(r.case_name, sizeof r.case_name, "%s", cases[i]);
        r.verdict = verdicts[i];
        r.group_row = i == 2;
        jsonl_write(f, &r);
    }
    long cut = ftell(f);
    jsonl_write_end(f, 3, 0);
    fclose(f);
    struct sel_set s = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(sel_add_failed(&s, path, NULL, &err), 2);
    /* Exact, not globs: brackets in names are letters; the device is matched by its name. */
    struct sel_key failed = {"sim", 5, "SIMT emulator [a]", 32, "cuda", "k", "c[1]"};
    struct sel_key glob_twin = {"sim", 0, "SIMT emulator [a]", 32, "cuda", "k", "c1"};
    struct sel_key other_device = {"sim", 0, "SIMT emulator a", 32, "cuda", "k", "c[1]"};
    ck_assert(sel_match(&s, &failed));
    ck_assert(!sel_match(&s, &other_device));
    /* The XPASS group row selects every case of its group again. */
    ck_assert(sel_match(&s, &glob_twin));
    struct sel_key other_width = {"sim", 0, "SIMT emulator [a]", 64, "cuda", "k", "c2"};
    ck_assert(!sel_match(&s, &other_width));
    sel_free(&s);
    /* Without its end record (a killed run) the file proves nothing: refused. */
    ck_assert_int_eq(truncate(path, cut), 0);
    ck_assert_int_eq(sel_add_failed(&s, path, NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, "no end record"), "%s", err.msg);
    sel_free(&s);
    t_rmtree(dir);
}
END_TEST

/* What a shard and a sanitized group re-run of the command line: the rest, in order. */
START_TEST(a_command_line_without_options_keeps_the_rest_in_order)
{
    char *argv[] = {"run",           "--json",  "a.jsonl",    "-k",       "x",
                    "--junit=b.xml", "--jsonx", "--sanitize", "memcheck", "last"};
    const char *const drop[] = {"--json", "--junit", "--sanitize"};
    char *out[10];
    int n = cli_argv_without(10, argv, drop, 3, out);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(out[0], "-k");
    ck_assert_str_eq(out[1], "x");
    ck_assert_str_eq(out[2], "--jsonx"); /* not --json: another option */
    ck_assert_str_eq(out[3], "last");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("cli");
    TCase *p = tcase_create("parse");
    tcase_add_test(p, a_command_line_without_options_keeps_the_rest_in_order);
    tcase_add_test(p, opt_equals_value_is_the_same_as_opt_space_value);
    tcase_add_test(p, repeats_and_comma_lists_accumulate);
    tcase_add_test(p, usage_errors_name_the_option);
    tcase_add_test(p, impossible_widths_and_shards_are_usage_errors);
    tcase_add_test(p, help_is_not_an_error);
    suite_add_tcase(s, p);
    TCase *id = tcase_create("ids");
    tcase_add_test(id, a_listed_id_selects_exactly_its_result);
    tcase_add_test(id, id_fields_take_globs_and_trailing_fields_are_optional);
    tcase_add_test(id, rerun_failed_selects_the_failing_rows_exactly);
    suite_add_tcase(s, id);
    return s;
}

int main(void) { return t_run(suite()); }
