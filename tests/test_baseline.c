/* SPDX-License-Identifier: MIT */
/* test_baseline.c: the upgrade gate (baseline.c): the record carries a header, perf_ratio
 * against the vendor row and an end record, and reads back; a record that is empty, cut
 * short, damaged or from an interrupted run is refused; a comparison counts a verdict gone
 * bad, error growth and missing cases as failing, reports improvements and driver changes
 * without failing, refuses a run the record does not cover unless --allow-new, and fails on
 * changed bits or slowdowns only when asked. */
#include <math.h>
#include <string.h>

#include "baseline.h"
#include "jsonl.h"
#include "op_fixture.h"
#include "tutil.h"

static struct rep_result rec(const char *lang, const char *kernel, const char *case_name, enum hb_verdict v, double ms)
{
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "cuda");
    snprintf(r.device, sizeof r.device, "NVIDIA H200");
    snprintf(r.driver, sizeof r.driver, "580.159 / CUDA 13.0");
    snprintf(r.lang, sizeof r.lang, "%s", lang);
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.case_name, sizeof r.case_name, "%s", case_name);
    snprintf(r.dist, sizeof r.dist, "uniform");
    r.width = 32;
    r.op = OP_SGEMM;
    r.verdict = v;
    T_SET(&r, "M", 64), T_SET(&r, "N", 64), T_SET(&r, "K", 64);
    cmp_init(&r.cmp);
    r.cmp.elements = 4096;
    r.cmp.threshold = 16;
    r.cmp.max_ratio = 1.5;
    r.output_hash = 0x1234;
    r.kernel_ms = ms;
    return r;
}

static void sink_of(struct rep_sink *s, const struct rep_result *r, int n)
{
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(s, NULL, NULL, NULL, &err), 0);
    for (int i = 0; i < n; i++)
        rep_add(s, &r[i]);
}

static void record(const char *path, const struct rep_sink *s)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    base_record(f, s);
    ck_assert_int_eq(fclose(f), 0);
}

/* Records `then`, compares `now` with it; returns the failing count (or -1) and the printed
 * text; *err gets the error. */
static int gate_err(const struct rep_result *then, int tn, const struct rep_result *now, int nn,
                    const struct base_opts *o, char **text, struct hb_err *err)
{
    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/base.jsonl", dir);
    struct rep_sink s;
    sink_of(&s, then, tn);
    record(path, &s);
    rep_close(&s);
    struct jsonl_run *old = base_load(path, err);
    ck_assert_msg(old != NULL, "%s", err->msg);
    sink_of(&s, now, nn);
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    int failing = base_compare(old, path, &s, o, out, err);
    *text = t_slurp(out);
    fclose(out);
    rep_close(&s);
    jsonl_run_free(old);
    free(old);
    t_rmtree(dir);
    return failing;
}

static int gate(const struct rep_result *then, int tn, const struct rep_result *now, int nn, const struct base_opts *o,
                char **text)
{
    struct hb_err err = {{0}};
    int failing = gate_err(then, tn, now, nn, o, text, &err);
    ck_assert_msg(failing >= 0, "%s", err.msg);
    return failing;
}

START_TEST(record_has_perf_ratio_against_vendor_and_reads_back)
{
    struct rep_result r[3] = {rec("cuda", "sgemm_tiled", "big", V_PASS, 3.0),
                              rec("vendor", "cublas", "big", V_PASS, 2.0),
                              rec("cuda", "sgemm_tiled", "other", V_PASS, 3.0)};
    struct rep_sink s;
    sink_of(&s, r, 3);
    double *ratios = base_perf_ratios(s.all, s.n);
    ck_assert(ratios[0] == 1.5);
    ck_assert(ratios[1] == 0); /* the vendor row itself */
    ck_assert(ratios[2] == 0); /* no vendor row for this case */
    free(ratios);
    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/base.jsonl", dir);
    struct hb_err err = {{0}};
    record(path, &s);
    char *text = t_slurp_path(path);
    ck_assert_ptr_nonnull(strstr(text, "\"note\":\"\",\"perf_ratio\":1.5}\n"));
    ck_assert_ptr_null(strstr(strstr(text, "perf_ratio") + 1, "perf_ratio")); /* that row only */
    free(text);
    struct rep_result *back;
    int n;
    ck_assert_int_eq(jsonl_read(path, &back, &n, &err), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(back[1].lang, "vendor");
    ck_assert(back[0].kernel_ms == 3.0);
    free(back);
    rep_close(&s);
    t_rmtree(dir);
}
END_TEST

START_TEST(same_run_has_no_differences)
{
    struct rep_result r[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1), rec("cuda", "sgemm_tiled", "b", V_XFAIL, 1)};
    char *text;
    ck_assert_int_eq(gate(r, 2, r, 2, NULL, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "2 records then, 2 now, 2 matched"));
    ck_assert_ptr_nonnull(strstr(text, "Baseline: 0 failing differences"));
    free(text);
}
END_TEST

START_TEST(verdict_pass_to_fail_fails_and_fail_to_pass_does_not)
{
    struct rep_result then = rec("cuda", "sgemm_tiled", "a", V_PASS, 1), now = then;
    now.verdict = V_FAIL;
    snprintf(now.why, sizeof now.why, "wrong");
    char *text;
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 1);
    ck_assert_ptr_nonnull(
        strstr(text, "WORSE    cuda NVIDIA H200 w32 cuda/sgemm_tiled a: verdict PASS -> FAIL: wrong"));
    free(text);
    ck_assert_int_eq(gate(&now, 1, &then, 1, NULL, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "better   cuda NVIDIA H200 w32 cuda/sgemm_tiled a: verdict FAIL -> PASS"));
    ck_assert_ptr_nonnull(strstr(text, "1 better"));
    free(text);
    /* Acceptable to acceptable is a change, not a failure. */
    now.verdict = V_SUSPECT;
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "changed"));
    free(text);
}
END_TEST

START_TEST(error_growth_past_factor_and_above_one_fails)
{
    struct rep_result then = rec("cuda", "sgemm_tiled", "a", V_PASS, 1), now = then;
    char *text;
    then.cmp.max_ratio = 2, now.cmp.max_ratio = 5;
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 1);
    ck_assert_ptr_nonnull(strstr(text, "error grew: max ratio 2 -> 5 (threshold 16), more than x2"));
    free(text);
    /* A known-bad kernel caught both times: its error is shown, not failed. */
    then.verdict = now.verdict = V_XFAIL;
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "changed  cuda NVIDIA H200 w32 cuda/sgemm_tiled a: error grew"));
    free(text);
    then.verdict = now.verdict = V_PASS;
    then.cmp.max_ratio = 2, now.cmp.max_ratio = 3.5; /* under the factor */
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 0);
    free(text);
    then.cmp.max_ratio = 0.1, now.cmp.max_ratio = 0.9; /* x9 but still under one */
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 0);
    free(text);
    struct base_opts o;
    base_opts_init(&o);
    o.error_growth = 1.5;
    then.cmp.max_ratio = 2, now.cmp.max_ratio = 3.5;
    ck_assert_int_eq(gate(&then, 1, &now, 1, &o, &text), 1);
    free(text);
}
END_TEST

START_TEST(bit_change_reported_and_fails_only_when_asked)
{
    struct rep_result then = rec("cuda", "sgemm_tiled", "a", V_PASS, 1), now = then;
    now.output_hash = 0x5678;
    char *text;
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "bits     cuda NVIDIA H200 w32 cuda/sgemm_tiled a: output bits changed "
                                       "(hash 0000000000001234 -> 0000000000005678)"));
    free(text);
    struct base_opts o;
    base_opts_init(&o);
    o.fail_on_bits = 1;
    ck_assert_int_eq(gate(&then, 1, &now, 1, &o, &text), 1);
    ck_assert_ptr_nonnull(strstr(text, "WORSE    cuda NVIDIA H200 w32 cuda/sgemm_tiled a: output bits changed"));
    free(text);
}
END_TEST

START_TEST(perf_regression_over_threshold)
{
    struct rep_result then = rec("cuda", "sgemm_tiled", "a", V_PASS, 1.0), now = then;
    char *text;
    now.kernel_ms = 1.2;
    ck_assert_int_eq(gate(&then, 1, &now, 1, NULL, &text), 0);
    ck_assert_ptr_nonnull(
        strstr(text, "slower   cuda NVIDIA H200 w32 cuda/sgemm_tiled a: slower +20%: kernel 1 ms -> 1.2 ms"));
    free(text);
    struct base_opts o;
    base_opts_init(&o);
    o.fail_on_perf = 1;
    ck_assert_int_eq(gate(&then, 1, &now, 1, &o, &text), 1);
    free(text);
    now.kernel_ms = 1.05; /* within 10% */
    ck_assert_int_eq(gate(&then, 1, &now, 1, &o, &text), 0);
    ck_assert_ptr_null(strstr(text, "slower "));
    free(text);
    o.perf_pct = 3;
    ck_assert_int_eq(gate(&then, 1, &now, 1, &o, &text), 1);
    free(text);
}
END_TEST

START_TEST(perf_compares_the_ratio_to_vendor_when_there_is_one)
{
    struct rep_result then[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 3.0),
                                 rec("vendor", "cublas", "a", V_PASS, 2.0)};
    struct rep_result now[2] = {then[0], then[1]};
    struct base_opts o;
    base_opts_init(&o);
    o.fail_on_perf = 1;
    char *text;
    /* The whole device got slower (clocks, a busy runner): the ratio holds, no regression. */
    now[0].kernel_ms = 3.9, now[1].kernel_ms = 2.6;
    ck_assert_int_eq(gate(then, 2, now, 2, &o, &text), 1); /* the vendor row alone has no ratio: by time */
    ck_assert_ptr_nonnull(strstr(text, "vendor/cublas a: slower +30%: kernel 2 ms -> 2.6 ms"));
    ck_assert_ptr_null(strstr(text, "cuda/sgemm_tiled a: slower"));
    free(text);
    /* Only the kernel got slower: 1.5 -> 1.95 times cuBLAS. */
    now[0].kernel_ms = 3.9, now[1].kernel_ms = 2.0;
    ck_assert_int_eq(gate(then, 2, now, 2, &o, &text), 1);
    ck_assert_ptr_nonnull(strstr(text, "cuda/sgemm_tiled a: slower +30%: 1.5 -> 1.95 times the vendor library's time"));
    free(text);
}
END_TEST

START_TEST(missing_case_fails_new_case_does_not_with_allow_new)
{
    struct rep_result then[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1),
                                 rec("cuda", "sgemm_tiled", "b", V_PASS, 1)};
    struct rep_result now[2] = {rec("cuda", "sgemm_tiled", "c", V_PASS, 1), rec("cuda", "sgemm_tiled", "a", V_PASS, 1)};
    struct base_opts o;
    base_opts_init(&o);
    o.allow_new = 1;
    char *text;
    ck_assert_int_eq(gate(then, 2, now, 2, &o, &text), 1);
    ck_assert_ptr_nonnull(
        strstr(text, "MISSING  cuda NVIDIA H200 w32 cuda/sgemm_tiled b: missing from this run (was PASS)"));
    ck_assert_ptr_nonnull(strstr(text, "new      cuda NVIDIA H200 w32 cuda/sgemm_tiled c: new in this run: PASS"));
    ck_assert_ptr_nonnull(strstr(text, "1 missing"));
    free(text);
    /* The width is part of the key: the same case at another width is another result. */
    now[1].width = 64;
    now[0] = then[1];
    ck_assert_int_eq(gate(then, 2, now, 2, &o, &text), 1);
    ck_assert_ptr_nonnull(strstr(text, "MISSING  cuda NVIDIA H200 w32 cuda/sgemm_tiled a"));
    free(text);
}
END_TEST

START_TEST(driver_change_is_noted_once_per_device)
{
    struct rep_result then[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1),
                                 rec("cuda", "sgemm_naive", "a", V_PASS, 1)};
    struct rep_result now[2] = {then[0], then[1]};
    snprintf(now[0].driver, sizeof now[0].driver, "580.200 / CUDA 13.0");
    snprintf(now[1].driver, sizeof now[1].driver, "580.200 / CUDA 13.0");
    char *text;
    ck_assert_int_eq(gate(then, 2, now, 2, NULL, &text), 0);
    const char *note = "note     cuda NVIDIA H200: driver 580.159 / CUDA 13.0 -> 580.200 / CUDA 13.0\n";
    const char *at = strstr(text, note);
    ck_assert_ptr_nonnull(at);
    ck_assert_ptr_null(strstr(at + 1, note));
    ck_assert_ptr_nonnull(strstr(text, "1 driver change\n"));
    free(text);
}
END_TEST

START_TEST(baseline_that_does_not_cover_the_run_is_an_error)
{
    struct rep_result then[1] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1)};
    struct rep_result now[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1), rec("cuda", "sgemm_tiled", "z", V_PASS, 1)};
    char *text;
    struct hb_err err = {{0}};
    ck_assert_int_eq(gate_err(then, 1, now, 2, NULL, &text, &err), -1);
    ck_assert_msg(strstr(err.msg, "does not cover 1 result of this run"), "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "--allow-new"), "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(text, "new in this run: PASS"));
    free(text);
}
END_TEST

/* Records that are not whole: each refused by base_load with its reason. */
static const struct {
    const char *text;
    size_t len;
    const char *problem;
} bad_baselines[] = {
    {"", 0, "no run header"},
    {"\n\n", 0, "no run header"},
    {"\0\0\0\0\n\0\n", 7, ":1: NUL byte"},
    {"{\"schema\":2,\"record\":\"header\"}\n", 0, "no end record: the file was cut short"},
    {"{\"schema\":2,\"record\":\"header\"}\n{\"schema\":2,\"record\":\"end\",\"results\":3}\n", 0,
     "0 results where its end record says 3"},
    {"{\"schema\":2,\"record\":\"header\"}\n{\"schema\":2,\"record\":\"end\",\"results\":0}\n", 0, "holds no results"},
    {"{\"schema\":2,\"record\":\"header\"}\n{\"schema\":2,\"record\":\"end\",\"results\":0,\"interrupted\":true}\n", 0,
     "interrupted run"},
    {"{\"backend\":\n", 0, ":1: "},
};

START_TEST(empty_cut_or_damaged_baseline_is_refused)
{
    char *dir = t_tmpdir();
    size_t len = bad_baselines[_i].len ? bad_baselines[_i].len : strlen(bad_baselines[_i].text);
    char *path = t_write_n(dir, "base.jsonl", bad_baselines[_i].text, len);
    struct hb_err err = {{0}};
    ck_assert_ptr_null(base_load(path, &err));
    ck_assert_msg(strstr(err.msg, bad_baselines[_i].problem), "case %d: '%s' lacks '%s'", _i, err.msg,
                  bad_baselines[_i].problem);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(baseline_cut_to_its_first_lines_is_refused)
{
    struct rep_result r[3] = {rec("cuda", "k", "a", V_PASS, 1), rec("cuda", "k", "b", V_PASS, 1),
                              rec("cuda", "k", "c", V_PASS, 1)};
    struct rep_sink s;
    sink_of(&s, r, 3);
    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/base.jsonl", dir);
    record(path, &s);
    rep_close(&s);
    char *text = t_slurp_path(path);
    char *third = strchr(strchr(text, '\n') + 1, '\n') + 1; /* header and one result kept */
    char *cut = t_write_n(dir, "cut.jsonl", text, (size_t)(third - text));
    struct hb_err err = {{0}};
    ck_assert_ptr_null(base_load(cut, &err));
    ck_assert_msg(strstr(err.msg, "no end record"), "%s", err.msg);
    struct jsonl_run *whole = base_load(path, &err);
    ck_assert_msg(whole != NULL, "%s", err.msg);
    ck_assert_int_eq(whole->n, 3);
    jsonl_run_free(whole);
    free(whole);
    free(text);
    free(cut);
    t_rmtree(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("baseline");
    TCase *tc = tcase_create("baseline");
    tcase_add_test(tc, record_has_perf_ratio_against_vendor_and_reads_back);
    tcase_add_test(tc, same_run_has_no_differences);
    tcase_add_test(tc, verdict_pass_to_fail_fails_and_fail_to_pass_does_not);
    tcase_add_test(tc, error_growth_past_factor_and_above_one_fails);
    tcase_add_test(tc, bit_change_reported_and_fails_only_when_asked);
    tcase_add_test(tc, perf_regression_over_threshold);
    tcase_add_test(tc, perf_compares_the_ratio_to_vendor_when_there_is_one);
    tcase_add_test(tc, missing_case_fails_new_case_does_not_with_allow_new);
    tcase_add_test(tc, driver_change_is_noted_once_per_device);
    tcase_add_test(tc, baseline_that_does_not_cover_the_run_is_an_error);
    tcase_add_loop_test(tc, empty_cut_or_damaged_baseline_is_refused, 0,
                        (int)(sizeof bad_baselines / sizeof bad_baselines[0]));
    tcase_add_test(tc, baseline_cut_to_its_first_lines_is_refused);
    suite_add_tcase(s, tc);
    return t_run(s);
}
