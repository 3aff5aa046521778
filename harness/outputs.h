/* outputs.h: what a run and a merge write after their last result, in one order for both:
 * the HTML page, the baseline record, the upgrade gate's section, then the table and the
 * closing "N passed, N failed, N skipped" line, last so that it ends a CI log. */
#ifndef HB_OUTPUTS_H
#define HB_OUTPUTS_H

#include "baseline.h"
#include "report.h"

struct out_opts {
    const char *html, *record, *compare;
    struct base_opts base;
};

/* Writes the after-run outputs of s and returns the exit code: `code` as the results left it,
 * 1 if the gate fails, 2 (with err) when an output cannot be written or the baseline read. */
int out_finish(const struct out_opts *o, const struct rep_sink *s, int code, struct hb_err *err);

#endif
