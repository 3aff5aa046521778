/* testbed.h: one case of one kernel on an open backend, in phases (testbed.c). It fills a
 * result row's figures; the verdict is verdict.c's. */
#ifndef HB_TESTBED_H
#define HB_TESTBED_H

#include "backend.h"
#include "manifest.h"
#include "op.h"
#include "report.h"

/* Runs case d of kernel k (NULL with kern NULL: the vendor library) `repeats` times and fills
 * r's figures. Returns nonzero when the backend reported an API error: the caller's device
 * context may then be unusable. */
int tb_run_case(const struct hb_backend *be, hb_ctx *ctx, hb_kern *kern, const struct kern_desc *k,
                const struct case_data *d, int repeats, struct rep_result *r);

#endif
