/* SPDX-License-Identifier: MIT */
/* gen.h: input data for a case, from its distribution and seed alone, so any run on any
 * machine regenerates the same bits. Knows nothing of kernels or references. */
#ifndef HB_GEN_H
#define HB_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"

/* Fills n floats of an input whose outputs are sums of `len` of its values (the chunk of a
 * reduction): DIST_EXACT and DIST_WIDEINT pick magnitudes small enough for every sum of that
 * length to be exact in float, in any order. `stream` separates one input from another. The
 * caller (the op) says what its outputs sum: gen.c knows no op. */
void gen_fill(float *out, size_t n, const struct hb_case *c, long len, int stream);
/* The same for the factors of outputs that sum `len` products of two inputs (sgemm: K terms
 * of A's stream 0 times B's stream 1, B row-major with rows `row` long, as DIST_WIDEINT reads
 * it). */
void gen_fill_products(float *out, size_t n, const struct hb_case *c, long len, long row, int stream);

/* Fills n values uniform in [lo, hi) (whole: whole numbers lo..hi-1) from the case's seed and
 * `stream`, for custom buffers of integer types and `init = range LO HI`. */
void gen_uniform(double *out, size_t n, const struct hb_case *c, int stream, double lo, double hi, int whole);

/* Exact-distribution amplitude: values are j/2 for |j| <= amplitude. */
int gen_exact_amplitude(long len, int factors);

/* Wideint distribution (gemm): A holds odd integers of 12 significant bits (2049..4095, not
 * representable in TF32 or bf16); B holds j/2, |j| <= the amplitude returned, on every
 * *stride-th row of K and zeros elsewhere, so that at most GEN_WIDEINT_MAX terms of each sum
 * are nonzero and every sum is exact in float. */
#define GEN_WIDEINT_MAX 4097
int gen_wideint_amplitude(long len, long *stride);

#endif
