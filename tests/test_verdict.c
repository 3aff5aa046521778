/* SPDX-License-Identifier: MIT */
/* test_verdict.c: the verdict rules (verdict.c): a kernel that claims to be right, one run at
 * a width it was not written for, a canary with the class it must produce, a kernel's declared
 * nondeterminism, the known-bug list's XFAIL and XPASS, and a known-bad group's XPASS. */
#include <check.h>
#include <string.h>

#include "compare.h"
#include "known.h"
#include "tutil.h"
#include "verdict.h"

static enum hb_verdict verdict(unsigned classes, int suspect, int expected_bad, unsigned expect)
{
    struct cmp_result r;
    cmp_init(&r);
    r.classes = classes;
    r.suspect = suspect;
    char why[256];
    enum hb_verdict v = verdict_case(&r, expected_bad, expect, 0, NULL, why, sizeof why);
    ck_assert_uint_lt(strlen(why), sizeof why);
    return v;
}

START_TEST(verdict_good_kernel)
{
    ck_assert_int_eq(verdict(0, 0, 0, 0), V_PASS);
    ck_assert_int_eq(verdict(0, 1, 0, 0), V_SUSPECT);
    ck_assert_int_eq(verdict(CLS_WRONG, 0, 0, 0), V_FAIL);
    ck_assert_int_eq(verdict(CLS_NAN, 0, 0, 0), V_FAIL);
    ck_assert_int_eq(verdict(CLS_UNWRITTEN, 0, 0, 0), V_FAIL);
    ck_assert_int_eq(verdict(CLS_OOB, 0, 0, 0), V_FAIL);
    ck_assert_int_eq(verdict(CLS_INPUT_MODIFIED, 0, 0, 0), V_FAIL);
    ck_assert_int_eq(verdict(CLS_NONDET, 0, 0, 0), V_FAIL);
    ck_assert_int_eq(verdict(CLS_CRASH, 0, 0, 0), V_ERROR);
    ck_assert_int_eq(verdict(CLS_TIMEOUT, 0, 0, 0), V_ERROR);
    ck_assert_int_eq(verdict(CLS_API, 0, 0, 0), V_ERROR);
    ck_assert_int_eq(verdict(CLS_API | CLS_WRONG, 0, 0, 0), V_ERROR);
}
END_TEST

START_TEST(verdict_why_names_the_classes)
{
    struct cmp_result r;
    cmp_init(&r);
    r.classes = CLS_WRONG | CLS_OOB;
    char why[256];
    ck_assert_int_eq(verdict_case(&r, 0, 0, 0, NULL, why, sizeof why), V_FAIL);
    ck_assert_str_eq(why, "wrong+oob");
    /* A short buffer is truncated, not overrun. */
    char small[6];
    verdict_case(&r, 0, 0, 0, NULL, small, sizeof small);
    ck_assert_str_eq(small, "wrong");
}
END_TEST

/* Launches that differ, each within the bound, of a kernel that did not declare it: the FAIL
 * names the manifest key that is the remedy; not when one is wrong or another class fails. */
START_TEST(verdict_undeclared_nondeterminism_names_the_key)
{
    struct cmp_result r;
    cmp_init(&r);
    r.classes = CLS_NONDET;
    r.repeats_within = 1;
    char why[256];
    ck_assert_int_eq(verdict_case(&r, 0, 0, 0, NULL, why, sizeof why), V_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "nondeterministic ("));
    ck_assert_ptr_nonnull(strstr(why, "its manifest says deterministic = no"));
    r.classes = CLS_NONDET | CLS_OOB; /* the key would not make it pass */
    ck_assert_int_eq(verdict_case(&r, 0, 0, 0, NULL, why, sizeof why), V_FAIL);
    ck_assert_str_eq(why, "oob+nondeterministic");
    r.classes = CLS_NONDET;
    r.repeats_within = 0;
    ck_assert_int_eq(verdict_case(&r, 0, 0, 0, NULL, why, sizeof why), V_FAIL);
    ck_assert_str_eq(why, "nondeterministic");
}
END_TEST

START_TEST(verdict_off_width_kernel)
{
    ck_assert_int_eq(verdict(CLS_WRONG, 0, 1, 0), V_XFAIL);
    ck_assert_int_eq(verdict(CLS_NAN, 0, 1, 0), V_XFAIL);
    ck_assert_int_eq(verdict(0, 1, 1, 0), V_XFAIL);
    ck_assert_int_eq(verdict(0, 0, 1, 0), V_PASS);
    ck_assert_int_eq(verdict(CLS_CRASH, 0, 1, 0), V_ERROR);
}
END_TEST

START_TEST(verdict_canary_with_expected_class)
{
    ck_assert_int_eq(verdict(CLS_OOB, 0, 1, CLS_OOB), V_XFAIL);
    ck_assert_int_eq(verdict(CLS_OOB | CLS_WRONG, 0, 1, CLS_OOB), V_XFAIL);
    ck_assert_int_eq(verdict(CLS_WRONG, 0, 1, CLS_OOB), V_FAIL);
    ck_assert_int_eq(verdict(CLS_CRASH, 0, 1, CLS_OOB), V_ERROR);
    ck_assert_int_eq(verdict(CLS_TIMEOUT, 0, 1, CLS_TIMEOUT), V_XFAIL);
    ck_assert_int_eq(verdict(CLS_CRASH, 0, 1, CLS_CRASH), V_XFAIL);
    ck_assert_int_eq(verdict(0, 0, 1, CLS_OOB), V_PASS);
    /* A suspect ratio is not the class a canary promised. */
    ck_assert_int_eq(verdict(0, 1, 1, CLS_WRONG), V_PASS);
}
END_TEST

START_TEST(verdict_declared_nondeterminism_is_reported_not_failed)
{
    struct cmp_result r;
    cmp_init(&r);
    r.classes = CLS_NONDET;
    r.repeat_ulp = 3;
    char why[256];
    ck_assert_int_eq(verdict_case(&r, 0, 0, CLS_NONDET, NULL, why, sizeof why), V_PASS);
    ck_assert_str_eq(why, "repeats differ by up to 3 ULP (deterministic = no)");
    /* Undeclared, the same difference fails; declared, a launch past the bound still does. */
    ck_assert_int_eq(verdict_case(&r, 0, 0, 0, NULL, why, sizeof why), V_FAIL);
    ck_assert_str_eq(why, "nondeterministic");
    r.classes = CLS_NONDET | CLS_WRONG;
    ck_assert_int_eq(verdict_case(&r, 0, 0, CLS_NONDET, NULL, why, sizeof why), V_FAIL);
    ck_assert_str_eq(why, "wrong");
}
END_TEST

static enum hb_verdict with_bug(unsigned classes, const struct known_bug *bug, char *why, unsigned len)
{
    struct cmp_result r;
    cmp_init(&r);
    r.classes = classes;
    return verdict_case(&r, 0, 0, 0, bug, why, len);
}

START_TEST(verdict_listed_bug_that_fails_is_xfail_with_its_reason)
{
    struct known_bug bug = {.backend = "vulkan",
                            .device = "*",
                            .kernel = "glsl/sgemm_naive",
                            .cases = "long_*",
                            .reason = "loop cap",
                            .file = "cases/known-bugs",
                            .line = 7};
    char why[256];
    ck_assert_int_eq(with_bug(CLS_WRONG, &bug, why, sizeof why), V_XFAIL);
    ck_assert_str_eq(why, "known bug: loop cap");
}
END_TEST

START_TEST(verdict_listed_bug_that_passes_is_xpass_naming_its_line)
{
    struct known_bug bug = {.backend = "vulkan",
                            .device = "*",
                            .kernel = "glsl/sgemm_naive",
                            .cases = "long_*",
                            .reason = "loop cap",
                            .file = "cases/known-bugs",
                            .line = 7};
    char why[256];
    ck_assert_int_eq(with_bug(0, &bug, why, sizeof why), V_XPASS);
    ck_assert_ptr_nonnull(strstr(why, "cases/known-bugs:7"));
    /* A listed case that crashes is still an error, not a catch. */
    ck_assert_int_eq(with_bug(CLS_CRASH, &bug, why, sizeof why), V_ERROR);
}
END_TEST

START_TEST(verdict_group_xpass_needs_every_case_run_and_passed)
{
    ck_assert(verdict_group_xpass(3, 3));
    ck_assert(!verdict_group_xpass(3, 2));
    ck_assert(!verdict_group_xpass(0, 0));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("verdict");
    TCase *v = tcase_create("verdict");
    tcase_add_test(v, verdict_good_kernel);
    tcase_add_test(v, verdict_why_names_the_classes);
    tcase_add_test(v, verdict_declared_nondeterminism_is_reported_not_failed);
    tcase_add_test(v, verdict_undeclared_nondeterminism_names_the_key);
    tcase_add_test(v, verdict_off_width_kernel);
    tcase_add_test(v, verdict_canary_with_expected_class);
    tcase_add_test(v, verdict_listed_bug_that_fails_is_xfail_with_its_reason);
    tcase_add_test(v, verdict_listed_bug_that_passes_is_xpass_naming_its_line);
    tcase_add_test(v, verdict_group_xpass_needs_every_case_run_and_passed);
    suite_add_tcase(s, v);
    return s;
}

int main(void) { return t_run(suite()); }
