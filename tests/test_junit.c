/* SPDX-License-Identifier: MIT */
/* test_junit.c: the JUnit writer (junit.c): XML escaping with what XML forbids replaced, the
 * streaming file well-formed with the right counts after every record, and failing until the
 * run has finished (a killed run's report is no clean run). */
#include <string.h>
#include <unistd.h>

#include "junit.h"
#include "report.h"
#include "report_fixture.h"
#include "tutil.h"

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

static Suite *suite(void)
{
    Suite *s = suite_create("junit");
    TCase *t = tcase_create("junit");
    tcase_add_test(t, xml_string_escapes_markup_and_replaces_what_xml_forbids);
    tcase_add_test(t, junit_is_well_formed_with_right_counts_after_every_record);
    tcase_add_test(t, a_killed_runs_junit_fails_saying_it_did_not_finish);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
