/* SPDX-License-Identifier: MIT */
/* selection.h: result ids and selection by them. An id names one result, pasteable:
 * BACKEND:DEVICE:wWIDTH:LANG/KERNEL:CASE (sim:0:w32:cuda/sgemm_naive:edge_15x16x17); `run
 * --list` prints them, `--id` takes them back with a glob in any field, and `--rerun-failed`
 * selects the failing results of an earlier run's JSON lines exactly. It decides nothing about
 * what a kernel can run: plan.c asks it only whether a (group, case) was asked for. */
#ifndef HB_SELECTION_H
#define HB_SELECTION_H

#include <stddef.h>

#include "util.h"

/* One selector. Globs (fnmatch) from --id, the device matching its index or its name; exact
 * strings from --rerun-failed, the device by name (what a result records). NULL: any. */
struct sel_id {
    char *backend, *device, *width, *lang, *kernel, *case_name;
    int exact;
};

struct sel_set {
    struct sel_id *ids;
    int n, cap;
};

/* Adds `text` (an id, trailing fields optional) as a glob selector. -1 with err. */
int sel_parse(struct sel_set *s, const char *text, struct hb_err *err);
/* Adds an exact selector for each FAIL, XPASS and ERROR record of a JSON lines file (a group
 * row selects its whole group). Returns how many, or -1 with err: also for a file that is not
 * a whole run (jsonl_run_incomplete), holds no result, or is an interrupted run's with no
 * failure, where "nothing to rerun" would pass what was never judged. `recorded` (may be
 * NULL) gets the run's header: its selection, for the rerun to take. */
struct run_header;
int sel_add_failed(struct sel_set *s, const char *path, struct run_header *recorded, struct hb_err *err);
void sel_free(struct sel_set *s);

/* What is known of a (group, case) when asking: NULL strings and negative numbers match
 * anything, so the plan can ask per backend, per kernel or per case before it knows the rest. */
struct sel_key {
    const char *backend;
    int device; /* index, -1 unknown */
    const char *device_name;
    int width; /* -1 unknown */
    const char *lang, *kernel, *case_name;
};
/* Whether some selector matches key; 1 when the set is empty (no selection asked for). */
int sel_match(const struct sel_set *s, const struct sel_key *key);

/* The id of one result: "sim:0:w32:cuda/sgemm_naive:edge_15x16x17". */
void sel_format(char *buf, size_t len, const char *backend, int device, int width, const char *lang, const char *kernel,
                const char *case_name);

#endif
