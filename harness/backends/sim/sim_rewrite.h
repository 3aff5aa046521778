/* SPDX-License-Identifier: MIT */
/* sim_rewrite.h: a preprocessed CUDA or HIP source made g++'s (sim_rewrite.c): launches, main(),
 * __noinline__, members named like built-ins, and the unroll pragmas (sim_unroll.c). */
#ifndef SIM_REWRITE_H
#define SIM_REWRITE_H

#include <stdio.h>

/* Copies a preprocessed source from in to out, rewritten; rolled: as the unchecked copy wants
 * it, its innermost accumulator loops left to g++ (sim_unroll.h). 0, or -1 on a read, write or
 * memory error. */
int sim_rewrite(FILE *in, FILE *out, int rolled);

#endif
