/* SPDX-License-Identifier: MIT */
/* sim_unroll.h: unroll pragmas spelled for nvcc, rewritten for g++ (sim_unroll.c). */
#ifndef SIM_UNROLL_H
#define SIM_UNROLL_H

#include <stdio.h>

/* Copies a preprocessed source from in to out with every `#pragma unroll [N]` line made
 * `#pragma GCC unroll N`. 0, or -1 on a read or write error. */
int sim_unroll_rewrite(FILE *in, FILE *out);

#endif
