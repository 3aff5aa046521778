/* SPDX-License-Identifier: MIT */
/* case_fixture.h: what the case catalogue suites share (test_case.c, test_case_errors.c): a
 * catalogue with one bad line must fail with a message that starts with the right
 * "file:line:" and says what is wrong. Header-only, for tests. */
#ifndef HB_CASE_FIXTURE_H
#define HB_CASE_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "case.h"
#include "tutil.h"

/* The bad line is line 3, after a comment and a good case. */
static inline void expect_error_in(const char *path, const char *text, int line, const char *needle)
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

static inline void expect_error(const char *bad_line, const char *needle)
{
    char text[8192];
    snprintf(text, sizeof text, "# catalogue\nsgemm ok M=1 N=1 K=1\n%s\nsgemm after M=1 N=1 K=1\n", bad_line);
    expect_error_in("t.cases", text, 3, needle);
}

#endif
