/* SPDX-License-Identifier: MIT */
/* shard.h: `harness run --devices all`: one shard per device of the named backend, run in
 * parallel as separate processes, then merged into one report. */
#ifndef HB_SHARD_H
#define HB_SHARD_H

#include "run.h"

/* o holds the parsed `harness run ... --devices all` command line (o->argv the words). Returns
 * the exit code: the merge's, 2 for bad usage, 3 when the backend has no device. */
int shard_devices_all(const struct run_opts *o);

#endif
