/* SPDX-License-Identifier: MIT */
/* report.h: the sink that streams result records (result.h) to JSON lines
 * (jsonl_write.c) and JUnit XML (junit.c) as results arrive, both valid after every record
 * so an interrupted run keeps what it had, and neither a whole run's until it has finished (no
 * end record; an error test case); the text a person reads (report_text.c); the result id and
 * the reproducer. Writers use only these records. */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "result.h"

/* Fills what the process knows: versions, start time, hostname, folder, command line. */
void rep_header_init(struct run_header *h, int argc, char **argv);

/* The result's id, `BACKEND:DEVICE:wWIDTH:LANG/KERNEL:CASE` (PHASE2 convention). */
void rep_result_id(const struct rep_result *r, char *buf, size_t len);
/* One shell command that reruns exactly this result (h may be NULL: tier quick). Returns
 * 1 when buf was too small (cut, at a character boundary), else 0. */
int rep_reproducer(const struct rep_result *r, const struct run_header *h, char *buf, size_t len);
/* The same in a buffer of its own (room for every path the header holds), for free(). */
char *rep_reproducer_text(const struct rep_result *r, const struct run_header *h);

struct rep_sink {
    FILE *json;
    struct junit *junit;
    struct run_header hdr;
    int write_failed; /* a report could not be written: the run fails with err */
    int interrupted;  /* set by rep_finish: the run stopped on a signal */
    struct hb_err write_err;
    int counts[V_COUNT];
    struct rep_result *all;
    int n, cap;
};

/* Opens the reports (either path may be NULL): JSON lines start with the run header
 * record and JUnit with its root, both flushed, so an unwritable path (or /dev/full) fails
 * here, before the run. h NULL: a header with only what the process knows. */
int rep_open(struct rep_sink *s, const char *json_path, const char *junit_path, const struct run_header *h,
             struct hb_err *err);
/* Adds a result: kept in memory and streamed to both files. A failed write is remembered
 * (write_failed) and reported by rep_finish. */
void rep_add(struct rep_sink *s, const struct rep_result *r);
/* Ends the reports: the JSON end record (how many results, whether interrupted), the last
 * flush and close of both files; the JUnit keeps its error test case for a run that did not
 * finish (junit.h) only when interrupted. -1 with err when any write or close failed. */
int rep_finish(struct rep_sink *s, int interrupted, struct hb_err *err);
/* Frees the records and closes whatever rep_finish did not (a JUnit so closed says the run
 * stopped before it finished). */
void rep_close(struct rep_sink *s);
int rep_failed(const struct rep_sink *s);
/* Cases that ran (a row per case that is not a SKIP): 0 means the run tested nothing. */
int rep_ran(const struct rep_sink *s);

/* report_text.c: what a person reads. */
/* What failed and by how much, in one line: bad/total, ratio as a fraction of its threshold,
 * NaN counts by origin, first bad element, guard damage. Group rows: their reason. */
void rep_describe(const struct rep_result *r, char *buf, size_t len);
/* The case's sizes, distribution and seed: "15x16x17 uniform seed 42". */
void rep_case_text(const struct rep_result *r, char *buf, size_t len);
/* One line per verdict as it arrives, failures with where and how large and, on the next
 * line, the reproducer (h may be NULL). Names pass through rep_term: no raw escapes. */
void rep_print_line(FILE *out, const struct rep_result *r, const struct run_header *h);
/* The end-of-run table grouped by kernel, then the failures, the counts and the closing line. */
void rep_print_summary(FILE *out, const struct rep_sink *s);
/* Text for a terminal: control characters (C0, DEL, C1) as \xHH, invalid UTF-8 as U+FFFD. */
void rep_term(FILE *out, const char *s);

/* Results summed per (backend, device, width) group, groups of one kernel together, kernels
 * in the order they first reported: what the table and the HTML page both show. */
struct rep_group {
    const struct rep_result *first; /* identity: lang, kernel, op, backend, device, width */
    int new_kernel;                 /* first group of its kernel */
    int counts[V_COUNT];
    double worst_margin; /* max over cases of max_ratio / threshold */
    double worst_sum;
    uint64_t worst_ulp;
};
/* Returns the number of groups; *out is malloc'd (free it). */
int rep_groups(const struct rep_sink *s, struct rep_group **out);
/* Whether a and b are one group's (backend, device, width, kernel). */
int rep_same_group(const struct rep_result *a, const struct rep_result *b);

#endif
