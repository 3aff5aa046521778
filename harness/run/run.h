/* SPDX-License-Identifier: MIT */
/* run.h: the conformance run, the top of run/. Plans (backend, device, kernel, width) groups,
 * computes each case's references once, runs every group in a child process so crashes and
 * hangs become verdicts, and feeds the report writers. Nothing in run/ calls up into it. */
#ifndef HB_RUN_H
#define HB_RUN_H

#include "run_opts.h"

int run_conformance(const struct run_opts *o, struct hb_err *err);

#endif
