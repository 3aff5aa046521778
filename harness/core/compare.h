/* SPDX-License-Identifier: MIT */
/* compare.h: turns a kernel's output and a case's references into error figures. The
 * thresholds and why they are what they are live in compare.c, next to their numbers; which
 * verdict the figures earn is verdict.c's business. No I/O, no devices. */
#ifndef HB_COMPARE_H
#define HB_COMPARE_H

#include <stdint.h>

#include "ref.h"
#include "types.h"
#include "verdict.h"

/* Where the bad elements sit: the output folded onto a HEAT x HEAT grid (rows x columns of
 * C; block partials row by row for reductions). Per cell: 0 fine, 1..250 the worst ratio
 * over the threshold on a log scale, then the special kinds below. */
#define CMP_HEAT 32
enum { CMP_HEAT_NAN = 251, CMP_HEAT_UNWRITTEN = 252 };

struct cmp_result {
    unsigned classes; /* failure classes seen (verdict.h) */
    int suspect;      /* a ratio in the grey band above its threshold, or an overflow below */
    long elements;    /* elements compared (C entries, or block partials) */
    long bad;         /* past the threshold, NaN/Inf mismatches, overflows and unwritten, together */
    long nan_mismatch;
    long nan_poison; /* NaN results carrying the output poison's payload (guard.h): C was
                        read before the kernel wrote it, and the poison went through */
    long nan_guard;  /* NaN results carrying the guard pattern's payload: an input was
                        read past its end */
    long nan_other;  /* any other NaN result where the truth is not NaN */
    long unwritten;
    long overflowed;       /* +-Inf or NaN where the truth is finite (or the other Inf) but terms of
                              that sign sum to within the error bound of float overflow: an
                              intermediate overflow some correct fp32 order may hit. Counted as
                              suspect, never as a failure class. */
    double threshold;      /* threshold at the element nearest its own (largest ratio / threshold);
                              with no error anywhere, the strictest threshold applied */
    double max_ratio;      /* |got - ref64| / (eps * gauge), after the flush allowance, at that
                              element: max_ratio / threshold is the case's margin */
    uint64_t max_ulp;      /* max ULP distance to OpenBLAS (sgemm) / rounded float64 (reduce), over
                              elements whose magnitude stands above the error bound */
    long first_i, first_j; /* first bad element: row, column (reduce: block, -1) */
    double first_expected;
    float first_got;
    double total_rel_err; /* reduce: relative error of the sum of all partials */
    int no_total;         /* reduce: a max or min, whose partials sum to nothing meant */
    long oob_buffer;      /* guard band damage: argument index, -1 when intact */
    long oob_offset;      /* byte offset from the start of that argument's data */
    uint64_t repeat_ulp;  /* a kernel declared deterministic = no: the largest ULP distance
                             between its first launch's output and a repeat's, 0 if identical */
    int repeats_within;   /* a kernel not declaring it whose repeats differed: 1 when every
                             launch, the first included, was within the bound by itself, so
                             that the manifest key is the remedy to name (verdict.c) */
    /* An op of several outputs and types (custom): the output holding the first bad element,
     * its expected and got values as the type table writes them, and the shape the heat map
     * folds (rows x columns; 1 x length for a list). "" and 0 for the other ops. */
    char first_buffer[16];
    char first_values[96];
    long heat_rows, heat_cols;
    unsigned char heat[CMP_HEAT * CMP_HEAT];
};

/* Heat value for a ratio over a threshold: log2 steps, 1 at the threshold. */
unsigned char cmp_heat_level(double ratio, double threshold);

void cmp_init(struct cmp_result *r);

/* ULP distance between two floats: +0 and -0 are 0 apart, two NaNs are 0 apart, a NaN and
 * a number are UINT64_MAX apart. */
uint64_t cmp_ulp(float a, float b);

/* Pass threshold for the componentwise ratio of one output summed from `len` terms, whose
 * gauge is sum |term| and whose magnitude is |truth| + sqrt(sum term^2) (compare.c says why).
 * For C = alpha A B + beta C0 the terms are alpha a_k b_k and beta c0. */
double cmp_threshold(long len, double gauge, double magnitude);

/* exact: the case's distribution promises sums exact in every order, so every element must
 * match bit for bit; elements the reference finds exact (ref->exact) are held to that anyway. */
void cmp_sgemm(const struct ref_sgemm *ref, const float *got, int exact, struct cmp_result *out);
/* The same for an output that held `given` (row-major M x N: the C of C = alpha A B + beta C)
 * before the launch: an element still holding those bits where the truth is past the FAIL
 * level is unwritten, not wrong. given NULL: the output was poisoned (cmp_sgemm). */
void cmp_sgemm_given(const struct ref_sgemm *ref, const float *given, const float *got, int exact,
                     struct cmp_result *out);
void cmp_reduce(const struct ref_reduce *ref, const float *partials, int exact, struct cmp_result *out);
/* The same for partials of type ty, f32 or f64: the bound's unit is that type's epsilon
 * (docs/tolerances.md). */
void cmp_reduce_typed(const struct ref_reduce *ref, enum hb_type ty, const void *partials, int exact,
                      struct cmp_result *out);

#endif
