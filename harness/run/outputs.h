/* SPDX-License-Identifier: MIT */
/* outputs.h: what a run and a merge write after their last result, in one order for both:
 * the HTML page, the baseline record, the upgrade gate's section, then the table and the
 * closing "N passed, N failed, N skipped" line, last so that it ends a CI log. Every output
 * is checked before the run starts (out_prepare) and every write after it. */
#ifndef HB_OUTPUTS_H
#define HB_OUTPUTS_H

#include <stdio.h>

#include "baseline.h"
#include "jsonl.h"
#include "report.h"
#include "report_file.h"

struct run_opts;

struct out_opts {
    const char *html, *record, *compare, *csv;
    struct base_opts base;
    /* Filled by out_prepare: each file, replaced in one step at the end (report_file.h); the
     * baseline read. */
    struct rep_file html_file, record_file, csv_file;
    struct jsonl_run *baseline;
};

/* Before the run: checks that --html, --csv and --record can be written, puts a page saying the
 * run has not finished in place of --html's (report_file.h: in one step; a previous run's page
 * never looks current), and reads and checks the --compare baseline. The CSV and the baseline
 * stay as they are until the run ends. -1 with err (exit 2). */
int out_prepare(struct out_opts *o, struct hb_err *err);

/* Whether n outputs (names[i] the option, paths[i] its file or NULL) are n different files:
 * two writers on one file would interleave into garbage. Character devices (/dev/null) may
 * be shared. -1 with "--a and --b name one file: PATH" in err. */
int out_distinct(const char *const *names, const char *const *paths, int n, struct hb_err *err);

/* Writes the after-run outputs of s and returns the exit code: `code` as the results left it,
 * 1 if the gate fails, 2 (with err) when a report could not be written (the streamed JSON and
 * JUnit included: rep_finish) or the baseline does not cover the run. An interrupted run
 * records no baseline: the previous one stays. Frees what out_prepare took. */
int out_finish(struct out_opts *o, struct rep_sink *s, int code, int interrupted, struct hb_err *err);

/* Releases what out_prepare took, for a run that stops before out_finish. */
void out_release(struct out_opts *o);

/* The run header of a `harness run`: the process's facts and the options that say what ran. */
void out_header(const struct run_opts *ro, struct run_header *h);

#endif
