/* SPDX-License-Identifier: MIT */
/* report_fixture.h: what the report suites share (test_report.c, test_junit.c): a writer's
 * output for one string, and a result row with text that needs escaping. Header-only. */
#ifndef HB_REPORT_FIXTURE_H
#define HB_REPORT_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "result.h"
#include "tutil.h"

static inline char *escaped(void (*fn)(FILE *, const char *), const char *s)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fn(f, s);
    char *out = t_slurp(f);
    fclose(f);
    return out;
}

static inline struct rep_result result(enum hb_verdict v, const char *case_name)
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

#endif
