/* SPDX-License-Identifier: MIT */
/* reduce_form.c: what a reduce kernel's manifest says of its form (reduce.h): the keys type,
 * combine, partials and identity, their defaults, and the questions the op asks of them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "reduce.h"

const char *const red_key_names[RED_KEYS] = {"type", "combine", "partials", "identity"};

static const char *const combine_names[] = {"sum", "max", "min"};

const char *red_combine_name(enum red_combine c) { return c <= RED_MIN ? combine_names[c] : "?"; }

enum hb_type red_partial_type(enum hb_type x) { return x == TY_F16 ? TY_F32 : x; }

long red_outputs(const struct kern_desc *k, long n)
{
    if (k->reduce.one_total)
        return 1;
    return n / k->chunk + (n % k->chunk != 0);
}

int red_is_exact(const struct kern_reduce *r) { return r->combine != RED_SUM || !ty_get(r->type)->is_float; }

/* The combine's neutral element in the partials' type, the one identity a reduction may
 * have: any other changes what every output is (a NaN for max makes every expected partial a
 * NaN, which an unwritten output's poison matches; INT_MAX for an i32 max makes it the
 * output). 0 for a sum; the lowest value for max (-inf for floats), the highest for min. */
static double red_neutral(enum hb_type t, enum red_combine c)
{
    if (c == RED_SUM)
        return 0;
    int max = c == RED_MAX;
    if (ty_get(t)->is_float)
        return max ? -INFINITY : INFINITY;
    if (t == TY_I32)
        return max ? (double)INT32_MIN : (double)INT32_MAX;
    return max ? 0 : (double)UINT32_MAX;
}

/* An identity as written must be the neutral element. A float sum's may be 0 or -0: -0 is
 * IEEE addition's own, +0 differs from it only in the sign of an all-zero total, which the
 * sum's error bound does not see. */
static int red_parse_identity(struct kern_reduce *r, const char *text, const char *where, struct hb_err *err)
{
    enum hb_type pt = red_partial_type((enum hb_type)r->type);
    double neutral = red_neutral(pt, (enum red_combine)r->combine);
    char *end = NULL;
    double v = strtod(text, &end);
    if (!end || end == text || *end) {
        err_set(err, "%s: identity = %s: expected a number", where, text);
        return -1;
    }
    if (v != neutral) { /* NaN included */
        err_set(err, "%s: identity %s is not the neutral element of %s over %s (write %.0f or leave identity out)",
                where, text, red_combine_name((enum red_combine)r->combine), ty_get(pt)->name, neutral);
        return -1;
    }
    r->identity = v;
    return 0;
}

static int red_parse_type(struct kern_reduce *r, const char *text, const char *where, struct hb_err *err)
{
    enum hb_type t;
    if (!ty_parse(text, &t) && (t == TY_F32 || t == TY_F64 || t == TY_F16 || t == TY_I32 || t == TY_U32))
        return r->type = (unsigned char)t, 0;
    err_set(err, "%s: type = %s: a reduction's x is f32, f64, f16 (f32 partials), i32 or u32", where, text);
    return -1;
}

static int red_parse_combine(struct kern_reduce *r, const char *text, const char *where, struct hb_err *err)
{
    for (int c = RED_SUM; c <= RED_MIN; c++)
        if (!strcmp(text, combine_names[c]))
            return r->combine = (unsigned char)c, 0;
    err_set(err, "%s: combine = %s: expected sum, max or min", where, text);
    return -1;
}

static int red_parse_partials(struct kern_desc *k, const char *text, int chunk_given, const char *where,
                              struct hb_err *err)
{
    if (!strcmp(text, "blocks"))
        return 0;
    if (strcmp(text, "1")) {
        err_set(err, "%s: partials = %s: expected 1 (one total) or blocks (one a block, the default)", where, text);
        return -1;
    }
    if (chunk_given) {
        err_set(err, "%s: partials = 1: the kernel writes one total over all of x, so it has no chunk", where);
        return -1;
    }
    k->reduce.one_total = 1;
    return 0;
}

int red_parse(struct kern_desc *k, const char *const text[RED_KEYS], const int line[RED_KEYS], const char *path,
              struct hb_err *err)
{
    struct kern_reduce *r = &k->reduce;
    char where[320];
    for (int i = 0; i < RED_KEYS; i++) {
        if (!text[i])
            continue;
        snprintf(where, sizeof where, "%s:%d", path, line[i]);
        if (k->op != OP_REDUCE) {
            err_set(err, "%s: kernel [%s]: %s applies to op = reduce only", where, k->name, red_key_names[i]);
            return -1;
        }
        int rc = i == RED_KEY_TYPE       ? red_parse_type(r, text[i], where, err)
                 : i == RED_KEY_COMBINE  ? red_parse_combine(r, text[i], where, err)
                 : i == RED_KEY_PARTIALS ? red_parse_partials(k, text[i], k->chunk > 0, where, err)
                                         : 0;
        if (rc)
            return -1;
    }
    enum hb_type pt = red_partial_type((enum hb_type)r->type);
    r->identity = red_neutral(pt, (enum red_combine)r->combine);
    snprintf(where, sizeof where, "%s:%d", path, line[RED_KEY_IDENTITY]);
    if (text[RED_KEY_IDENTITY] && red_parse_identity(r, text[RED_KEY_IDENTITY], where, err))
        return -1;
    r->identity_bits = 0;
    ty_store(pt, &r->identity_bits, r->identity);
    if (k->op == OP_REDUCE && !r->one_total && k->chunk <= 0) {
        err_set(err, "%s:%d: kernel [%s] has no 'chunk' (or partials = 1)", path, k->line, k->name);
        return -1;
    }
    return 0;
}

int red_check_args(const struct kern_desc *k, int args_line, struct hb_err *err)
{
    const struct kern_reduce *r = &k->reduce;
    if (k->op != OP_REDUCE || r->type != TY_F64 || !kern_takes(k, "identity") || !strcmp(k->lang, "cuda"))
        return 0;
    /* Its identity (0 or an infinity) is a float's value: only how it reaches the kernel matters. */
    err_set(err,
            "%s:%d: kernel [%s]: an f64 reduction's identity parameter is passed as a float, which only CUDA's "
            "launch widens to a double; take the identity from the kernel's own code or leave it out of args",
            k->file, args_line, k->name);
    return -1;
}

float red_identity_float(const struct kern_reduce *r) { return (float)r->identity; }

int32_t red_identity_int(const struct kern_reduce *r) { return (int32_t)(uint32_t)r->identity_bits; }
