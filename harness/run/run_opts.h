/* SPDX-License-Identifier: MIT */
/* run_opts.h: what a conformance run (or its listing) is asked, as the command line said it
 * (cmd/run_options.c parses it), and the exit codes a run answers with. Every part of the run
 * reads these; none of it is the run's own state (runner.h). */
#ifndef HB_RUN_OPTS_H
#define HB_RUN_OPTS_H

#include "selection.h"
#include "util.h"

#define RUN_MAX_LIST 16

struct run_opts {
    const char *backends[RUN_MAX_LIST]; /* none: every built backend with a usable device */
    int n_backends;
    const char *tier;                       /* quick | standard | nightly */
    const char *cases;                      /* catalogue file instead of the tier's */
    const char *kernel_globs[RUN_MAX_LIST]; /* kernels by name or lang/name; none: all */
    int n_kernel_globs;
    const char *case_globs[RUN_MAX_LIST]; /* cases by name; none: all */
    int n_case_globs;
    const char *junit, *json;
    const char *trace;                   /* --trace FILE: Chrome trace events of the run (trace.h) */
    const char *html, *record, *compare; /* after-run page, baseline record, upgrade gate */
    const char *csv;                     /* after-run results.csv */
    int fail_on_bits;                    /* with compare: changed output bits fail */
    int allow_new;                       /* with compare: results the baseline lacks are not an error */
    double perf_pct;                     /* with compare: slower by more than this fails (0: reported only) */
    const char *manifests[RUN_MAX_LIST];
    int n_manifests;
    int no_builtin; /* only --manifest kernels */
    int widths[RUN_MAX_LIST];
    int n_widths;
    double timeout_s;                /* per case */
    int repeats;                     /* launches per case, >= 2 for the repeatability check */
    const char *known_bugs;          /* known-bug list instead of cases/known-bugs */
    const char *schedule;            /* emulator schedule, passed as HB_SIM_SCHEDULE */
    int quiet;                       /* only failures while running */
    int jobs;                        /* workers at once (0: one per core) */
    int maxfail;                     /* stop after this many failures (0: never) */
    int shard, shards;               /* run only cases whose ordinal % shards == shard (shards 0: all) */
    int device;                      /* only this device index of each backend, -1 for all */
    int devices_all;                 /* --devices all: one shard per device, merged */
    int allow_empty;                 /* a run where no case ran exits 0 instead of EXIT_NOTHING_RAN */
    long guard_kib;                  /* guard band before and after every buffer, KiB (0: the default) */
    const char *sanitize;            /* run each group under compute-sanitizer: memcheck | racecheck */
    const char *group_child;         /* internal, set by sanitize_exec: run one group and exit */
    struct sel_set ids;              /* --id and --rerun-failed: only these results (empty: all) */
    const char *rerun_failed;        /* the JSON lines --rerun-failed read */
    struct run_header *rerun_header; /* its run's header: the selection a rerun takes from it */
    int list;                        /* --list: print the ids that would run, run nothing */
    int shrink;                      /* --shrink: shrink each failing case's sizes after the run */
    int argc;                        /* the command line, re-run under the sanitizer */
    char **argv;
};

/* Exit codes: the command decides one, main returns it. EXIT_NOTHING_RAN: no case ran (every
 * kernel skipped, or nothing matched), so a gate cannot pass by not running. */
enum { EXIT_OK = 0, EXIT_FAILURES = 1, EXIT_USAGE = 2, EXIT_NO_DEVICE = 3, EXIT_NOTHING_RAN = 4 };

#endif
