/* SPDX-License-Identifier: MIT */
/* reduce.h: the forms of the reduce op beyond float block sums (kernels/README.md): the
 * element type of x (f32 f64 f16 i32 u32; f16 inputs have f32 partials), the combine (sum,
 * max, min), one total instead of a partial per block (`partials = 1`: atomics into one value,
 * which starts as the identity) and the identity a kernel may take as a parameter. What a
 * manifest says of them (reduce_form.c), and the exact references and comparison of integer
 * sums and of max and min (reduce_exact.c); float sums keep ref.h's bound, scaled to the type
 * (compare.c). Knows no backend. */
#ifndef HB_REDUCE_H
#define HB_REDUCE_H

#include <stdint.h>

#include "compare.h"
#include "manifest.h"
#include "types.h"
#include "util.h"

/* The keys, in this order, with the text and line each was given on (NULL, 0: not given). */
enum { RED_KEY_TYPE, RED_KEY_COMBINE, RED_KEY_PARTIALS, RED_KEY_IDENTITY, RED_KEYS };
extern const char *const red_key_names[RED_KEYS];

/* Fills k->reduce from the keys (defaults: f32, sum, a partial per block, the combine's
 * neutral element, the only identity it takes). -1 with "file:line: problem". */
int red_parse(struct kern_desc *k, const char *const text[RED_KEYS], const int line[RED_KEYS], const char *path,
              struct hb_err *err);
/* Checks what depends on the args (parsed after): a kernel taking `identity` of an f64
 * reduction gets it as a float, which only backends that see the parameter's type (CUDA, the
 * emulator) widen. -1 with "file:line: problem". */
int red_check_args(const struct kern_desc *k, int args_line, struct hb_err *err);

/* The partials' type: f32 for f16 inputs, else x's. */
enum hb_type red_partial_type(enum hb_type x);
/* Partials a kernel writes on a case of n elements: 1 with `partials = 1`, else one a block. */
long red_outputs(const struct kern_desc *k, long n);
/* Whether outputs are compared bit for bit: integers, and max or min of any type. */
int red_is_exact(const struct kern_reduce *r);
/* "sum", "max", "min". */
const char *red_combine_name(enum red_combine c);

/* The identity as a launch gets it: a float (float types) or 32 bits (integers). */
float red_identity_float(const struct kern_reduce *r);
int32_t red_identity_int(const struct kern_reduce *r);

/* The exact references of one form on x (n elements of `type`, the layout's bits): the
 * expected value of each output in the partial type, and whether a NaN there is right too
 * (a float max or min over a chunk holding a NaN: fmaxf ignores it, a comparison may not). */
struct red_exact {
    long outputs;
    enum hb_type type; /* the partials' */
    unsigned char combine;
    void *want;
    unsigned char *nan_ok;
    double total; /* the combine of all x, as a double */
};
void red_exact_compute(struct red_exact *e, const struct kern_reduce *r, const void *x, long n, long chunk);
void red_exact_free(struct red_exact *e);
/* Every output of got against e, bit for bit (+0 = -0; any NaN where nan_ok): poison left is
 * unwritten, a NaN or infinity against a number nan-mismatch, any other difference wrong. */
void red_exact_compare(const struct red_exact *e, const void *got, struct cmp_result *cmp);

#endif
