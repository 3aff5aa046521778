/* SPDX-License-Identifier: MIT */
/* result.h: the records a run is made of: one result per case (or per group), and the run
 * header a reproducer needs. Plain data, below the reports: the ops fill results, the
 * runner carries them across the worker pipe, the report writers (report.h) only read them. */
#ifndef HB_RESULT_H
#define HB_RESULT_H

#include <stdint.h>

#include "case.h"
#include "compare.h"
#include "op.h"
#include "util.h"
#include "verdict.h"

/* Plain data: it crosses the pipe from a child process as bytes. Text fields are cut only
 * between UTF-8 characters (text.h); `why` holds any hb_err message whole. */
struct rep_result {
    char backend[16];
    char device[128];
    char driver[128];
    char lang[8];
    char kernel[128];
    char case_name[128];
    char note[256];
    char why[1024];
    char schedule[64]; /* the emulator schedule this result ran under, when not the run's */
    int device_index;  /* the backend's device number: ids and reproducers */
    int user_manifest; /* the kernel came from a --manifest file, not the shipped set */
    int width;
    int group_row; /* a row about the whole group (SKIP, open ERROR, XPASS), case "*" */
    enum hb_op op;
    enum hb_verdict verdict;
    /* The case's sizes as hb_case has them; the JSON lines give them in their columns, or as
     * text for an op whose cases name their own (jsonl_write.c). */
    int n_sizes;
    struct case_size sizes[CASE_MAX_SIZES];
    /* What the op notes of the kernel's view (op_desc.note): the scalars it computed with
     * (given: it takes the scalar; read back from JSON, none is), its storage ("row", "col";
     * "" where the op has none or never noted the row). */
    int n_scalars;
    struct case_scalar scalars[CASE_MAX_SCALARS];
    char layout[4];
    char dist[12];
    uint64_t seed;
    struct cmp_result cmp;
    uint64_t output_hash;   /* FNV-1a of the output bits, for baselines */
    double kernel_ms;       /* device time of the fastest launch of the case */
    double first_launch_ms; /* device time of its first launch (the emulator's checked one) */
    double child_ms;        /* whole case in the child: uploads, launches, checks */
    uint64_t threads;       /* threads launched per launch */
    char binary[1024];      /* which binary ran (backend's kernel_origin), "" when not said */
};

/* What a run was: written first in the JSON lines and the JUnit properties, and what a
 * reproducer needs besides the result itself. Filled by the run (outputs.c: out_header). */
#define REP_PATH 4096
#define REP_MAX_MANIFESTS 16
struct run_header {
    char harness[64];     /* this harness's version, as --version says it: "0.2.0 (commit X)" */
    char reference[128];  /* the reference library (OpenBLAS and its version) */
    char tier[16];        /* quick | standard | nightly, "" with a cases file */
    char cases[REP_PATH]; /* --cases FILE, as given */
    char manifests[REP_MAX_MANIFESTS][REP_PATH];
    int n_manifests;
    int only_manifest;
    char known_bugs[REP_PATH]; /* --known-bugs FILE, "" for the default */
    char schedule[64];         /* --schedule, "" for the emulator's default */
    int shard, shards;         /* --shard i/n (shards 0: not sharded) */
    long guard_bytes;          /* the guard band before and after every buffer (--guard-kib) */
    char selection[17];        /* what the run (all its shards) covers and how it judges, hashed: "" unknown */
    char start[32];            /* UTC, ISO 8601 */
    char hostname[256];
    char cwd[REP_PATH];
    char exe[REP_PATH];  /* argv[0]: the reproducer starts with it */
    char command[16384]; /* the command line, shell-quoted */
};

#endif
