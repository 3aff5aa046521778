/* SPDX-License-Identifier: MIT */
/* test_report.c: the report sink and writers (report.c, report_text.c, jsonl_write.c,
 * junit.c): JSON and XML escaping with invalid UTF-8 made valid, the streaming JUnit file
 * staying well-formed with the right counts after every record and failing until the run has
 * finished (a killed run's report is no clean run), JSON lines with a header, an
 * end record and non-finite figures as strings, the closing summary line, the reproducer,
 * NaN origins, terminal escapes, and writes that fail. */
#include <math.h>
#include <string.h>

#include "jsonl.h"
#include "junit.h"
#include "report.h"
#include "text.h"
#include "tutil.h"

static char *escaped(void (*fn)(FILE *, const char *), const char *s)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fn(f, s);
    char *out = t_slurp(f);
    fclose(f);
    return out;
}

START_TEST(json_string_escapes_quotes_backslashes_and_controls)
{
    char *out = escaped(jsonl_string, "a\"b\\c\nd\x01"
                                      "e\tf\x1f");
    ck_assert_str_eq(out, "\"a\\\"b\\\\c\\nd\\u0001e\\u0009f\\u001f\"");
    free(out);
    out = escaped(jsonl_string, "");
    ck_assert_str_eq(out, "\"\"");
    free(out);
    out = escaped(jsonl_string, "caf\xc3\xa9 <&>");
    ck_assert_str_eq(out, "\"caf\xc3\xa9 <&>\"");
    free(out);
    /* A stray byte, a CESU-8 surrogate and a cut sequence all become U+FFFD: the line stays valid. */
    out = escaped(jsonl_string, "a\xff b\xed\xa0\x80 c\xe2\x82");
    ck_assert_str_eq(out, "\"a\\ufffd b\\ufffd\\ufffd\\ufffd c\\ufffd\\ufffd\"");
    free(out);
}
END_TEST

START_TEST(xml_string_escapes_markup_and_replaces_what_xml_forbids)
{
    char *out = escaped(junit_text, "<a href=\"x\">&'y'</a>");
    ck_assert_str_eq(out, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;y&apos;&lt;/a&gt;");
    free(out);
    out = escaped(junit_text, "bell\x07 tab\t nl\n bad\xc3(");
    ck_assert_str_eq(out, "bell\xef\xbf\xbd tab&#9; nl&#10; bad\xef\xbf\xbd(");
    free(out);
}
END_TEST

static struct rep_result result(enum hb_verdict v, const char *case_name)
{
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "sim");
    snprintf(r.device, sizeof r.device, "dev <0> & \"friends\"");
    snprintf(r.driver, sizeof r.driver, "drv 1.0");
    snprintf(r.lang, sizeof r.lang, "cuda");
    snprintf(r.kernel, sizeof r.kernel, "sgemm_<tiled>");
    snprintf(r.case_name, sizeof r.case_name, "%s", case_name);
    snprintf(r.why, sizeof r.why, "why: a < b && c > \"d\" 'e'\n");
    snprintf(r.dist, sizeof r.dist, "uniform");
    r.width = 32;
    r.op = OP_SGEMM;
    r.verdict = v;
    r.n_sizes = 3, memcpy(r.sizes, (struct case_size[]){{"M", 4}, {"N", 4}, {"K", 4}}, 3 * sizeof *r.sizes);
    r.seed = 7;
    cmp_init(&r.cmp);
    r.cmp.elements = 16;
    r.cmp.threshold = 16;
    r.child_ms = 1.5;
    return r;
}

static int xmllint_ok(const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "/usr/bin/xmllint --noout '%s'", path);
    return system(cmd) == 0;
}

static int occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void expect_counts(const char *junit, int tests, int failures, int errors, int skipped)
{
    char want[128];
    snprintf(want, sizeof want, "tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\"", tests, failures, errors,
             skipped);
    char *text = t_slurp_path(junit);
    ck_assert_msg(strstr(text, want), "no '%s' in:\n%s", want, text);
    ck_assert_int_eq(occurrences(text, "<testcase "), tests);
    ck_assert_int_eq(occurrences(text, "<failure "), failures);
    ck_assert_int_eq(occurrences(text, "<error "), errors);
    ck_assert_int_eq(occurrences(text, "<skipped "), skipped);
    /* The closing tags come exactly once, at the very end. */
    ck_assert_int_eq(occurrences(text, "</testsuites>"), 1);
    const char *tail = tests ? "</testsuite>\n</testsuites>\n" : "</testsuites>\n";
    ck_assert_str_eq(text + strlen(text) - strlen(tail), tail);
    if (access("/usr/bin/xmllint", X_OK) == 0)
        ck_assert_msg(xmllint_ok(junit), "xmllint rejects:\n%s", text);
    free(text);
}

START_TEST(junit_is_well_formed_with_right_counts_after_every_record)
{
    if (access("/usr/bin/xmllint", X_OK) != 0)
        fprintf(stderr, "report: /usr/bin/xmllint missing: JUnit checked by structure only\n");
    char *dir = t_tmpdir();
    char json[256], junit[256];
    snprintf(json, sizeof json, "%s/r.jsonl", dir);
    snprintf(junit, sizeof junit, "%s/r.xml", dir);
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_msg(rep_open(&s, json, junit, NULL, &err) == 0, "%s", err.msg);
    expect_counts(junit, 1, 0, 1, 0); /* the run's own test case: not finished */
    const enum hb_verdict seq[] = {V_PASS, V_FAIL, V_XPASS, V_ERROR, V_SKIP, V_XFAIL, V_SUSPECT, V_FAIL};
    int tests = 1, failures = 0, errors = 1, skipped = 0;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "case<%zu>&", i);
        struct rep_result r = result(seq[i], name);
        if (seq[i] == V_FAIL) {
            r.cmp.classes = CLS_WRONG;
            r.cmp.bad = 1;
            r.cmp.first_i = 1, r.cmp.first_j = 2;
            r.cmp.first_expected = 3.0, r.cmp.first_got = NAN;
            r.cmp.max_ratio = INFINITY;
        }
        rep_add(&s, &r);
        tests++;
        failures += seq[i] == V_FAIL || seq[i] == V_XPASS;
        errors += seq[i] == V_ERROR;
        skipped += seq[i] == V_SKIP;
        expect_counts(junit, tests, failures, errors, skipped);
    }
    ck_assert(rep_failed(&s));
    ck_assert_int_eq(rep_finish(&s, 0, &err), 0);
    rep_close(&s);
    expect_counts(junit, 8, 3, 1, 1);
    t_rmtree(dir);
}
END_TEST

/* The JUnit as a run killed outright (SIGKILL: nothing more is written) leaves it, after a
 * passing result, and after the run's end, whole or interrupted. */
static char *junit_after(int finish, int interrupted)
{
    char *dir = t_tmpdir(), junit[256];
    snprintf(junit, sizeof junit, "%s/r.xml", dir);
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_msg(rep_open(&s, NULL, junit, NULL, &err) == 0, "%s", err.msg);
    struct rep_result pass = result(V_PASS, "p");
    rep_add(&s, &pass);
    char *text = NULL;
    if (!finish) {
        text = t_slurp_path(junit);
        expect_counts(junit, 2, 0, 1, 0);
    }
    if (finish)
        ck_assert_int_eq(rep_finish(&s, interrupted, &err), 0);
    rep_close(&s);
    if (finish) {
        text = t_slurp_path(junit);
        expect_counts(junit, 1 + interrupted, 0, interrupted, 0);
    }
    t_rmtree(dir);
    return text;
}

START_TEST(a_killed_runs_junit_fails_saying_it_did_not_finish)
{
    char *text = junit_after(0, 0);
    ck_assert_msg(strstr(text, "<error type=\"incomplete\" message=\"the harness run did not finish (killed?)"), "%s",
                  text);
    free(text);
    text = junit_after(1, 1);
    ck_assert_msg(strstr(text, "message=\"the run was interrupted: the results it did not reach are missing"), "%s",
                  text);
    free(text);
    text = junit_after(1, 0);
    ck_assert_ptr_null(strstr(text, "incomplete"));
    free(text);
}
END_TEST

START_TEST(json_lines_are_objects_with_verdicts_and_string_non_finites)
{
    char *dir = t_tmpdir();
    char json[256];
    snprintf(json, sizeof json, "%s/r.jsonl", dir);
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_msg(rep_open(&s, json, NULL, NULL, &err) == 0, "%s", err.msg);
    struct rep_result pass = result(V_PASS, "p");
    struct rep_result fail = result(V_FAIL, "f");
    fail.cmp.classes = CLS_WRONG | CLS_OOB;
    fail.cmp.first_i = 0, fail.cmp.first_j = 3;
    fail.cmp.first_expected = 2.5, fail.cmp.first_got = NAN;
    fail.cmp.max_ratio = INFINITY;
    fail.cmp.oob_buffer = 2, fail.cmp.oob_offset = -4;
    struct rep_result red = result(V_SKIP, "r");
    red.op = OP_REDUCE;
    red.cmp.total_rel_err = -INFINITY;
    rep_add(&s, &pass);
    rep_add(&s, &fail);
    rep_add(&s, &red);
    ck_assert(rep_failed(&s));
    ck_assert_int_eq(rep_finish(&s, 1, &err), 0);
    rep_close(&s);
    char *text = t_slurp_path(json);
    char *all[6] = {0}, **lines = all + 1;
    int n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        ck_assert_int_lt(n, 5);
        all[n++] = l;
        ck_assert_int_eq(l[0], '{');
        ck_assert_int_eq(l[strlen(l) - 1], '}');
        ck_assert_ptr_null(strstr(l, ":inf"));
        ck_assert_ptr_null(strstr(l, ":nan"));
    }
    ck_assert_int_eq(n, 5);
    ck_assert_ptr_nonnull(strstr(all[0], "{\"schema\":2,\"record\":\"header\""));
    ck_assert_str_eq(all[4], "{\"schema\":2,\"record\":\"end\",\"results\":3,\"interrupted\":true}");
    ck_assert_ptr_nonnull(strstr(lines[0], "{\"schema\":2,\"record\":\"result\""));
    ck_assert_ptr_nonnull(strstr(lines[0], "\"seed\":\"7\""));
    ck_assert_ptr_nonnull(strstr(lines[0], "\"verdict\":\"PASS\""));
    ck_assert_ptr_nonnull(strstr(lines[0], "\"case\":\"p\""));
    ck_assert_ptr_nonnull(strstr(lines[0], "\"device\":\"dev <0> & \\\"friends\\\"\""));
    ck_assert_ptr_nonnull(strstr(lines[1], "\"verdict\":\"FAIL\""));
    ck_assert_ptr_nonnull(strstr(lines[1], "\"classes\":\"wrong+oob\""));
    ck_assert_ptr_nonnull(strstr(lines[1], "\"max_ratio\":\"inf\""));
    ck_assert_ptr_nonnull(strstr(lines[1], "\"got\":\"nan\""));
    ck_assert_ptr_nonnull(strstr(lines[1], "\"first_bad\":{\"i\":0,\"j\":3"));
    ck_assert_ptr_nonnull(strstr(lines[1], "\"oob\":{\"arg\":2,\"offset\":-4}"));
    ck_assert_ptr_nonnull(strstr(lines[2], "\"verdict\":\"SKIP\""));
    ck_assert_ptr_nonnull(strstr(lines[2], "\"total_rel_err\":\"-inf\""));
    free(text);
    /* Where a JSON parser is at hand, every line must parse. */
    if (system("command -v python3 >/dev/null 2>&1") == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' '%s'",
                 json);
        ck_assert_msg(system(cmd) == 0, "python3 json rejects %s", json);
    } else {
        fprintf(stderr, "report: python3 missing: JSON checked by structure only\n");
    }
    t_rmtree(dir);
}
END_TEST

static char *last_line(char *text)
{
    size_t n = strlen(text);
    ck_assert_uint_gt(n, 1);
    ck_assert_int_eq(text[n - 1], '\n');
    text[n - 1] = 0;
    char *nl = strrchr(text, '\n');
    return nl ? nl + 1 : text;
}

START_TEST(summary_ends_with_passed_failed_skipped)
{
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, NULL, NULL, NULL, &err), 0);
    const enum hb_verdict seq[] = {V_PASS, V_PASS, V_SUSPECT, V_XFAIL, V_FAIL, V_XPASS, V_ERROR, V_SKIP, V_SKIP};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%zu", i);
        struct rep_result r = result(seq[i], name);
        if (i == 5)
            snprintf(r.kernel, sizeof r.kernel, "other");
        rep_add(&s, &r);
    }
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    rep_print_summary(f, &s);
    char *text = t_slurp(f);
    fclose(f);
    ck_assert_str_eq(last_line(text), "4 passed, 3 failed, 2 skipped; 7 ran");
    ck_assert_ptr_nonnull(strstr(text, "Failures"));
    ck_assert_ptr_nonnull(strstr(text, "cuda/other"));
    free(text);
    ck_assert(rep_failed(&s));
    rep_close(&s);
}
END_TEST

START_TEST(summary_of_a_clean_run_has_no_failures)
{
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, NULL, NULL, NULL, &err), 0);
    struct rep_result r = result(V_PASS, "only");
    rep_add(&s, &r);
    ck_assert(!rep_failed(&s));
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    rep_print_summary(f, &s);
    char *text = t_slurp(f);
    fclose(f);
    ck_assert_ptr_null(strstr(text, "Failures"));
    ck_assert_str_eq(last_line(text), "1 passed, 0 failed, 0 skipped; 1 ran");
    free(text);
    rep_close(&s);
}
END_TEST

START_TEST(print_line_names_the_first_bad_element)
{
    struct rep_result r = result(V_FAIL, "sq_4");
    r.cmp.classes = CLS_WRONG;
    r.cmp.bad = 2;
    r.cmp.first_i = 1, r.cmp.first_j = 3;
    r.cmp.first_expected = 2.0, r.cmp.first_got = 5.0f;
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    rep_print_line(f, &r, NULL);
    char *text = t_slurp(f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "FAIL"));
    ck_assert_ptr_nonnull(strstr(text, "2/16 elements bad"));
    ck_assert_ptr_nonnull(strstr(text, "C[1][3]: expected 2 got 5"));
    ck_assert_msg(strstr(text, "\n          rerun: harness run --backend sim --device 0 --width 32 --kernel "
                               "'cuda/sgemm_<tiled>' --case sq_4 --tier quick\n"),
                  "%s", text);
    free(text);
}
END_TEST

START_TEST(open_failure_names_the_path_and_leaves_nothing_open)
{
    char *dir = t_tmpdir();
    char json[256];
    snprintf(json, sizeof json, "%s/r.jsonl", dir);
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, json, "/nonexistent/dir/r.xml", NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir/r.xml: cannot write"));
    ck_assert_ptr_null(s.json);
    ck_assert_ptr_null(s.junit);
    ck_assert_int_eq(rep_open(&s, "/nonexistent/dir/r.jsonl", NULL, NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir/r.jsonl: cannot write"));
    t_rmtree(dir);
}
END_TEST

static char *printed(void (*fn)(FILE *, const struct rep_result *, const struct run_header *),
                     const struct rep_result *r, const struct run_header *h)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fn(f, r, h);
    char *text = t_slurp(f);
    fclose(f);
    return text;
}

START_TEST(reproducer_names_cases_file_manifests_and_schedule_quoted)
{
    struct rep_result r = result(V_FAIL, "edge_15x16x17");
    snprintf(r.kernel, sizeof r.kernel, "my_kernel");
    r.device_index = 3;
    r.user_manifest = 1;
    struct run_header *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    snprintf(h->exe, sizeof h->exe, "build/harness");
    snprintf(h->cases, sizeof h->cases, "my cases/it's.cases");
    snprintf(h->manifests[0], sizeof h->manifests[0], "/k/a.manifest");
    snprintf(h->manifests[1], sizeof h->manifests[1], "/k/b.manifest");
    h->n_manifests = 2;
    snprintf(h->schedule, sizeof h->schedule, "random:7");
    char cmd[1024];
    ck_assert_int_eq(rep_reproducer(&r, h, cmd, sizeof cmd), 0);
    ck_assert_str_eq(cmd, "build/harness run --backend sim --device 3 --width 32 --kernel cuda/my_kernel --case "
                          "edge_15x16x17 --cases 'my cases/it'\\''s.cases' --manifest /k/a.manifest --manifest "
                          "/k/b.manifest --only-manifest --schedule random:7");
    /* A shipped kernel needs no manifest; a group row has no case; a short buffer is cut. */
    r.user_manifest = 0, r.group_row = 1;
    h->cases[0] = 0;
    snprintf(h->tier, sizeof h->tier, "standard");
    ck_assert_int_eq(rep_reproducer(&r, h, cmd, sizeof cmd), 0);
    ck_assert_str_eq(cmd, "build/harness run --backend sim --device 3 --width 32 --kernel cuda/my_kernel --tier "
                          "standard --schedule random:7");
    ck_assert_int_eq(rep_reproducer(&r, h, cmd, 20), 1);
    ck_assert_uint_lt(strlen(cmd), 20);
    char id[256];
    r.group_row = 0;
    rep_result_id(&r, id, sizeof id);
    ck_assert_str_eq(id, "sim:3:w32:cuda/my_kernel:edge_15x16x17");
    free(h);
}
END_TEST

START_TEST(all_nan_failure_prints_nan_counts_and_origin_not_ratio_zero)
{
    struct rep_result r = result(V_FAIL, "nan");
    r.cmp.classes = CLS_NAN;
    r.cmp.bad = r.cmp.nan_mismatch = 16;
    r.cmp.nan_poison = 10, r.cmp.nan_guard = 5, r.cmp.nan_other = 1;
    char *text = printed(rep_print_line, &r, NULL);
    ck_assert_msg(strstr(text, "16 NaN/Inf mismatches: 10 NaN from the output poison (C read before it was "
                               "written), 5 NaN from the guard pattern (an input read past its end), 1 other NaN"),
                  "%s", text);
    ck_assert_msg(!strstr(text, "max ratio 0"), "%s", text);
    free(text);
}
END_TEST

START_TEST(group_worst_ratio_is_a_fraction_of_each_threshold)
{
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, NULL, NULL, NULL, &err), 0);
    struct rep_result a = result(V_PASS, "a"), b = result(V_PASS, "b");
    a.cmp.max_ratio = 30, a.cmp.threshold = 100; /* the larger ratio, but 0.3 of its threshold */
    b.cmp.max_ratio = 8, b.cmp.threshold = 16;   /* 0.5 of its own */
    rep_add(&s, &a);
    rep_add(&s, &b);
    FILE *f = tmpfile();
    rep_print_summary(f, &s);
    char *text = t_slurp(f);
    fclose(f);
    ck_assert_msg(strstr(text, "worst ratio 0.5 of its threshold"), "%s", text);
    free(text);
    rep_close(&s);
}
END_TEST

START_TEST(terminal_text_never_carries_raw_escapes)
{
    struct rep_result r = result(V_FAIL, "x\x1b]0;title\x07y");
    snprintf(r.kernel, sizeof r.kernel, "k\x1b[2J\xc2\x9b");
    char *text = printed(rep_print_line, &r, NULL);
    ck_assert_ptr_null(strchr(text, '\x1b'));
    ck_assert_ptr_null(strchr(text, '\x07'));
    ck_assert_ptr_null(strstr(text, "\xc2\x9b"));
    ck_assert_msg(strstr(text, "k\\x1b[2J\\x9b"), "%s", text);
    free(text);
}
END_TEST

START_TEST(full_disk_fails_at_open_and_at_finish)
{
    if (access("/dev/full", W_OK) != 0)
        return;
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, "/dev/full", NULL, NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, "/dev/full: cannot write: No space left on device"), "%s", err.msg);
    ck_assert_int_eq(rep_open(&s, NULL, "/dev/full", NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, "/dev/full: cannot write"), "%s", err.msg);
}
END_TEST

START_TEST(why_is_cut_between_characters)
{
    struct rep_result r;
    char long_text[2048];
    memset(long_text, 0, sizeof long_text);
    for (size_t i = 0; i + 2 < sizeof long_text; i += 2)
        memcpy(long_text + i, "\xc3\xa9", 2);
    txt_copy(r.why, sizeof r.why - 1, long_text); /* an odd size: a byte cut would split a character */
    ck_assert(txt_valid(r.why));
    ck_assert_uint_eq(strlen(r.why), sizeof r.why - 2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *t = tcase_create("report");
    tcase_add_test(t, json_string_escapes_quotes_backslashes_and_controls);
    tcase_add_test(t, xml_string_escapes_markup_and_replaces_what_xml_forbids);
    tcase_add_test(t, junit_is_well_formed_with_right_counts_after_every_record);
    tcase_add_test(t, a_killed_runs_junit_fails_saying_it_did_not_finish);
    tcase_add_test(t, json_lines_are_objects_with_verdicts_and_string_non_finites);
    tcase_add_test(t, summary_ends_with_passed_failed_skipped);
    tcase_add_test(t, summary_of_a_clean_run_has_no_failures);
    tcase_add_test(t, print_line_names_the_first_bad_element);
    tcase_add_test(t, open_failure_names_the_path_and_leaves_nothing_open);
    tcase_add_test(t, reproducer_names_cases_file_manifests_and_schedule_quoted);
    tcase_add_test(t, all_nan_failure_prints_nan_counts_and_origin_not_ratio_zero);
    tcase_add_test(t, group_worst_ratio_is_a_fraction_of_each_threshold);
    tcase_add_test(t, terminal_text_never_carries_raw_escapes);
    tcase_add_test(t, full_disk_fails_at_open_and_at_finish);
    tcase_add_test(t, why_is_cut_between_characters);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
