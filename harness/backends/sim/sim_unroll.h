/* SPDX-License-Identifier: MIT */
/* sim_unroll.h: unroll pragmas spelled for nvcc, rewritten for g++ (sim_unroll.c). */
#ifndef SIM_UNROLL_H
#define SIM_UNROLL_H

#include <stdio.h>

/* Copies a preprocessed source from in to out with every `#pragma unroll [N]` line made
 * `#pragma GCC unroll N`; with rolled (the unchecked copy, which checks nothing), but for the
 * pragmas of innermost `for` loops whose body calls nothing but fmaf: those are left as written,
 * which g++ ignores, so the vectorizer gets them as loops (a thread's 8 x 8 FMA tile as 8 packed
 * FMAs, where unrolled first it was 64 scalar ones with spills). 0, or -1 on a read or write
 * error. */
int sim_unroll_rewrite(FILE *in, FILE *out, int rolled);

#endif
