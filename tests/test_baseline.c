/* test_baseline.c: the upgrade gate (baseline.c): the record carries perf_ratio against the
 * vendor row and reads back; a comparison counts a verdict gone bad, error growth and missing
 * cases as failing, reports improvements, new cases and driver changes without failing, and
 * fails on changed bits or slowdowns only when asked. */
#include <math.h>
#include <string.h>

#include "baseline.h"
#include "jsonl.h"
#include "tutil.h"

static struct rep_result rec(const char *lang, const char *kernel, const char *case_name, enum hb_verdict v,
                             double ms)
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
    r.M = r.N = r.K = 64;
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
    ck_assert_int_eq(rep_open(s, NULL, NULL, &err), 0);
    for (int i = 0; i < n; i++)
        rep_add(s, &r[i]);
}

/* Records `then`, compares `now` with it; returns the failing count and the printed text. */
static int gate(const struct rep_result *then, int tn, const struct rep_result *now, int nn,
                const struct base_opts *o, char **text)
{
    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/base.jsonl", dir);
    struct rep_sink s;
    struct hb_err err = {{0}};
    sink_of(&s, then, tn);
    ck_assert_int_eq(base_record(path, &s, &err), 0);
    rep_close(&s);
    sink_of(&s, now, nn);
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    int failing = base_compare(path, &s, o, out, &err);
    ck_assert_msg(failing >= 0, "%s", err.msg);
    *text = t_slurp(out);
    fclose(out);
    rep_close(&s);
    t_rmtree(dir);
    return failing;
}

START_TEST(record_has_perf_ratio_against_vendor_and_reads_back)
{
    struct rep_result r[3] = {rec("cuda", "sgemm_tiled", "big", V_PASS, 3.0), rec("vendor", "cublas", "big", V_PASS, 2.0),
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
    ck_assert_int_eq(base_record(path, &s, &err), 0);
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
    ck_assert_ptr_nonnull(strstr(text, "WORSE    cuda NVIDIA H200 w32 cuda/sgemm_tiled a: verdict PASS -> FAIL: wrong"));
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
    ck_assert_ptr_nonnull(strstr(text, "slower   cuda NVIDIA H200 w32 cuda/sgemm_tiled a: slower +20%: kernel 1 ms -> 1.2 ms"));
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
    struct rep_result then[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 3.0), rec("vendor", "cublas", "a", V_PASS, 2.0)};
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

START_TEST(missing_case_fails_new_case_does_not)
{
    struct rep_result then[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1), rec("cuda", "sgemm_tiled", "b", V_PASS, 1)};
    struct rep_result now[2] = {rec("cuda", "sgemm_tiled", "c", V_PASS, 1), rec("cuda", "sgemm_tiled", "a", V_PASS, 1)};
    char *text;
    ck_assert_int_eq(gate(then, 2, now, 2, NULL, &text), 1);
    ck_assert_ptr_nonnull(strstr(text, "MISSING  cuda NVIDIA H200 w32 cuda/sgemm_tiled b: missing from this run (was PASS)"));
    ck_assert_ptr_nonnull(strstr(text, "new      cuda NVIDIA H200 w32 cuda/sgemm_tiled c: new in this run: PASS"));
    ck_assert_ptr_nonnull(strstr(text, "1 missing"));
    free(text);
    /* The width is part of the key: the same case at another width is another result. */
    now[1].width = 64;
    now[0] = then[1];
    ck_assert_int_eq(gate(then, 2, now, 2, NULL, &text), 1);
    ck_assert_ptr_nonnull(strstr(text, "MISSING  cuda NVIDIA H200 w32 cuda/sgemm_tiled a"));
    free(text);
}
END_TEST

START_TEST(driver_change_is_noted_once_per_device)
{
    struct rep_result then[2] = {rec("cuda", "sgemm_tiled", "a", V_PASS, 1), rec("cuda", "sgemm_naive", "a", V_PASS, 1)};
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

START_TEST(unreadable_baseline_is_an_error)
{
    char *dir = t_tmpdir();
    char *path = t_write(dir, "base.jsonl", "{\"backend\":\n");
    struct rep_sink s;
    sink_of(&s, NULL, 0);
    struct hb_err err = {{0}};
    FILE *out = tmpfile();
    ck_assert_int_eq(base_compare(path, &s, NULL, out, &err), -1);
    char want[160];
    snprintf(want, sizeof want, "%s:1: ", path);
    ck_assert_ptr_nonnull(strstr(err.msg, want));
    fclose(out);
    rep_close(&s);
    free(path);
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
    tcase_add_test(tc, missing_case_fails_new_case_does_not);
    tcase_add_test(tc, driver_change_is_noted_once_per_device);
    tcase_add_test(tc, unreadable_baseline_is_an_error);
    suite_add_tcase(s, tc);
    return t_run(s);
}
