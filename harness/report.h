/* report.h: result records and their writers: JSON lines and JUnit XML streamed as results
 * arrive (both valid after every record, so an interrupted run keeps what it had), and the
 * table and summary a person reads at the end. Writers use only this record. */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "op.h"
#include "util.h"
#include "verdict.h"

/* Plain data: it crosses the pipe from a child process as bytes. */
struct rep_result {
    char backend[16];
    char device[128];
    char driver[128];
    char lang[8];
    char kernel[64];
    char case_name[96];
    char note[160];
    char why[256];
    int width;
    int group_row;          /* a row about the whole group (SKIP, open ERROR, XPASS), case "*" */
    enum hb_op op;
    enum hb_verdict verdict;
    long M, N, K, n;
    long lda, ldb, ldc;     /* sgemm_strided row strides, 0 otherwise */
    unsigned scalars;       /* sgemm: the kernel takes alpha (CASE_ALPHA) and/or beta (CASE_BETA) */
    float alpha, beta;      /* the values it was given (1 and 0 for one that takes none) */
    int col_major;          /* sgemm: the kernel's data were column-major (layout = col) */
    char dist[12];
    uint64_t seed;
    struct cmp_result cmp;
    uint64_t output_hash;   /* FNV-1a of the output bits, for baselines */
    double kernel_ms;       /* device time of the fastest launch of the case */
    double child_ms;        /* whole case in the child: uploads, launches, checks */
    uint64_t threads;       /* threads launched per launch */
    char binary[512];       /* which binary ran (backend's kernel_origin), "" when not said */
};

struct rep_sink {
    FILE *json;
    FILE *junit;
    long junit_tail;        /* where the closing tags start */
    int junit_counts_at;    /* offset of the fixed-width counts in the header */
    int counts[V_COUNT];
    struct rep_result *all;
    int n, cap;
};

int rep_open(struct rep_sink *s, const char *json_path, const char *junit_path, struct hb_err *err);
void rep_add(struct rep_sink *s, const struct rep_result *r);
/* One line per verdict as it arrives (stdout), failures with where and how large. */
void rep_print_line(FILE *out, const struct rep_result *r);
/* The end-of-run table grouped by kernel, then the counts and the closing line. */
void rep_print_summary(FILE *out, const struct rep_sink *s);
int rep_failed(const struct rep_sink *s);
/* Cases that ran (a row per case that is not a SKIP): 0 means the run tested nothing. */
int rep_ran(const struct rep_sink *s);

/* Results summed per (backend, device, width) group, groups of one kernel together, kernels
 * in the order they first reported: what the table and the HTML page both show. */
struct rep_group {
    const struct rep_result *first; /* identity: lang, kernel, op, backend, device, width */
    int new_kernel;                 /* first group of its kernel */
    int counts[V_COUNT];
    double worst_ratio, worst_sum;
    uint64_t worst_ulp;
};
/* Returns the number of groups; *out is malloc'd (free it). */
int rep_groups(const struct rep_sink *s, struct rep_group **out);
void rep_close(struct rep_sink *s);

/* Escapes for the writers, exposed for the tests. */
void rep_json_string(FILE *out, const char *s);
/* One result as one JSON line, exactly as --json writes it. */
void rep_write_json(FILE *out, const struct rep_result *r);
void rep_xml_string(FILE *out, const char *s);

#endif
