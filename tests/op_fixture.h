/* SPDX-License-Identifier: MIT */
/* op_fixture.h: cases and records by their sizes' names, as the suites that build them by hand
 * need (the structs hold sizes and scalars as named lists, op.h): set one, read one, or make a
 * case from a catalogue line. Header-only, for tests. */
#ifndef HB_OP_FIXTURE_H
#define HB_OP_FIXTURE_H

#include <check.h>

#include "case.h"

/* Size `name` of a case or a record (0 when it has none), and setting it. */
#define T_SIZE(x, name) case_size_of((x)->sizes, (x)->n_sizes, name)
#define T_SET(x, name, v) ck_assert(!case_size_set((x)->sizes, &(x)->n_sizes, name, v))
/* An SGEMM case (sgemm or sgemm_strided). */
#define T_GEMM(c) ((c)->op == OP_SGEMM || (c)->op == OP_SGEMM_STRIDED)
/* Scalar `name` of a case or a record, and setting it (given: the line gave it, or the kernel
 * takes it). */
#define T_SCALAR(x, name) t_scalar((x)->scalars, (x)->n_scalars, name)
#define T_SET_SCALAR(x, name, v, g) t_set_scalar((x)->scalars, &(x)->n_scalars, name, v, g)

static inline float t_scalar(const struct case_scalar *s, int n, const char *name)
{
    const struct case_scalar *at = case_scalar_find(s, n, name);
    return at ? at->value : 0.0f;
}

static inline void t_set_scalar(struct case_scalar *s, int *n, const char *name, float value, int given)
{
    ck_assert(!case_scalar_set(s, n, name, value));
    ((struct case_scalar *)case_scalar_find(s, *n, name))->given = given;
}

/* The first case of one catalogue line ("sgemm x M=3 N=4 K=5 dist=exact"), as the catalogue
 * makes it: the op's defaults filled in. */
static inline struct hb_case t_case(const char *line)
{
    struct case_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(!case_parse_text("t.cases", line, &set, &err), "%s: %s", line, err.msg);
    struct hb_case c = set.c[0];
    case_set_free(&set);
    return c;
}

#endif
