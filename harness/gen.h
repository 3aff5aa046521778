/* gen.h: input data for a case, from its distribution and seed alone, so any run on any
 * machine regenerates the same bits. Knows nothing of kernels or references. */
#ifndef HB_GEN_H
#define HB_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"

/* Fills n floats. `len` is the accumulation length each output sums over (K for sgemm,
 * the chunk for reduce): DIST_EXACT picks magnitudes small enough for every sum of that
 * length to be exact in float, in any order. `stream` separates A from B. */
void gen_fill(float *out, size_t n, const struct hb_case *c, long len, int stream);

/* Exact-distribution amplitude: values are j/2 for |j| <= amplitude. */
int gen_exact_amplitude(long len, int factors);

#endif
