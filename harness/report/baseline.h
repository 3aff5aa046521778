/* SPDX-License-Identifier: MIT */
/* baseline.h: the upgrade gate. Records a run's results (JSON lines plus each kernel's time as
 * a ratio to the vendor library on the same device) and later compares a new run, say after a
 * driver or toolkit upgrade, with that record. It judges differences between two runs only;
 * whether a single result is right is compare.c's business. */
#ifndef HB_BASELINE_H
#define HB_BASELINE_H

#include <stdio.h>

#include "jsonl.h"
#include "report.h"
#include "util.h"

struct base_opts {
    int allow_new;       /* results the baseline lacks are reported, not an error */
    double error_growth; /* max_ratio worse by more than this factor (and above 1) fails */
    double perf_pct;     /* slower by more than this percent is a regression */
    int fail_on_bits;    /* a changed output hash fails (else reported only) */
    int fail_on_perf;    /* a performance regression fails (else reported only) */
};

/* Defaults: growth 2, 10 percent, bit changes and slowdowns reported but not failing. */
void base_opts_init(struct base_opts *o);

/* For each record, its kernel_ms over the vendor row's (lang "vendor") for the same backend,
 * device, width and case in the same run; 0 where there is none or either time is missing
 * (and for the vendor rows themselves). malloc'd, n entries. */
double *base_perf_ratios(const struct rep_result *all, int n);

/* Writes s to f as JSON lines: its header, every result with "perf_ratio" where it exists,
 * and the end record. The caller checks the writes when it closes f. */
void base_record(FILE *f, const struct rep_sink *s);

/* Reads a record for --compare and checks that it is whole: a run header, results, and an
 * end record whose count matches, from a run that was not interrupted. NULL with err. */
struct jsonl_run *base_load(const char *path, struct hb_err *err);

/* Compares the run in s with the record `old` (read from path by base_load), keyed by
 * backend, device, lang, kernel, width and case; prints a section to out. Returns the number
 * of failing differences (a verdict that now fails the run, error growth, a missing case;
 * bit changes and slowdowns when the options say so), or -1 with err when this run has
 * results the record lacks and o->allow_new is not set. */
int base_compare(const struct jsonl_run *old, const char *path, const struct rep_sink *s, const struct base_opts *o,
                 FILE *out, struct hb_err *err);

#endif
