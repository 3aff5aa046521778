/* SPDX-License-Identifier: MIT */
/* merge.h: `harness merge`: joins the JSON lines of sharded runs (--shard i/n on n runners)
 * into one report, as if one run had produced them. It runs nothing on a device. */
#ifndef HB_MERGE_H
#define HB_MERGE_H

#include "outputs.h"

struct merge_opts {
    const char *junit, *json;
    struct out_opts out; /* the page, record and gate after the merge */
    const char **inputs; /* shard JSON lines files, in order */
    int n_inputs;
    int allow_partial; /* shards of a split may be missing */
    int interrupted;   /* the run did not finish (--devices all: a signal, a shard killed) */
};

/* Merges o->inputs into one report as one run would have written it; returns its exit code
 * (0, 1, or 2 with a message on stderr when an input cannot be read or an output written). */
int merge_files(const struct merge_opts *o);

/* `harness merge [options] IN.jsonl...` (merge_options.c): argv[1] is "merge". Returns 0, 1
 * (a FAIL, XPASS or ERROR, or a failing baseline difference) or 2 (bad usage or an unreadable
 * input). */
int merge_main(int argc, char **argv);

#endif
