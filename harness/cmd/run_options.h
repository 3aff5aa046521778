/* SPDX-License-Identifier: MIT */
/* run_options.h: the command line of `harness run` and `harness list` into struct run_opts
 * (run_opts.h), with its defaults (run_options.c). It runs nothing. */
#ifndef HB_RUN_OPTIONS_H
#define HB_RUN_OPTIONS_H

#include "run_opts.h"

/* The options' defaults; run_opts_free releases what parsing allocated. */
void run_opts_init(struct run_opts *o);
void run_opts_free(struct run_opts *o);
/* Parses `run` or `list` options (argv[0] is the command) into o: 0, 1 when --help was printed
 * (or there is nothing to rerun), -1 with "--opt: problem" in err. */
int run_parse_options(int argc, char **argv, struct run_opts *o, struct hb_err *err);

#endif
