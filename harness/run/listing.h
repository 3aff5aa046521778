/* SPDX-License-Identifier: MIT */
/* listing.h: the run planned and printed instead of run. `harness list`: each backend with its
 * devices and widths (probed in child processes), the kernels found (by the name --kernel
 * takes) and the size of the case catalogue; `harness run --list`: the id of every result a
 * run with the same options would make, in run order. Each returns an exit code (run_opts.h). */
#ifndef HB_LISTING_H
#define HB_LISTING_H

#include "run_opts.h"

/* `harness list`: backends, devices, kernels. */
int list_all(const struct run_opts *o, struct hb_err *err);
/* `harness run --list`: the id of every result the run would make, one per line; a listing of
 * nothing exits 1, as a run of nothing fails. */
int list_ids(const struct run_opts *o, struct hb_err *err);

#endif
