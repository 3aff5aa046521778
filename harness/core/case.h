/* SPDX-License-Identifier: MIT */
/* case.h: declarative case catalogues (cases/NAME.cases). A case is one line: an op, a name,
 * sizes, a value distribution and a seed; lists in a line expand to their cross product.
 * Parsing only: input data comes from gen.c, references from reference/. */
#ifndef HB_CASE_H
#define HB_CASE_H

#include <stdint.h>

#include "op.h"
#include "util.h"

enum case_dist { DIST_EXACT, DIST_UNIFORM, DIST_CANCEL, DIST_SPECIAL, DIST_WIDEINT, DIST_COUNT };
const char *case_dist_name(enum case_dist d);

/* Special values a DIST_SPECIAL case sprinkles into its inputs. */
enum case_special {
    SPECIAL_NAN = 1u << 0,
    SPECIAL_INF = 1u << 1,
    SPECIAL_NEGZERO = 1u << 2,
    SPECIAL_SUBNORMAL = 1u << 3,
};

enum case_scalar { CASE_ALPHA = 1u << 0, CASE_BETA = 1u << 1 };

/* op = custom: the sizes a line gives, by name, in the line's order; a custom kernel runs the
 * cases that give exactly its own. */
#define CASE_MAX_SIZES 6
struct case_size {
    char name[16];
    long value;
};

struct hb_case {
    enum hb_op op;
    char name[96];
    long M, N, K;       /* sgemm */
    long lda, ldb, ldc; /* sgemm_strided: row strides (elements), >= K, N, N */
    long n;             /* reduce */
    int n_sizes;        /* custom */
    struct case_size sizes[CASE_MAX_SIZES];
    unsigned scalars;  /* sgemm: CASE_ALPHA, CASE_BETA when the line gives alpha=, beta= */
    float alpha, beta; /* for kernels that take them; the op's defaults when not given */
    enum case_dist dist;
    unsigned specials;
    uint64_t seed;
    char note[160]; /* stated expectation, e.g. how NaN must propagate */
    char file[256];
    int line;
};

struct case_set {
    struct hb_case *c;
    int n, cap;
    int *index; /* name index (case.c) */
    size_t index_cap;
};

/* Parses a catalogue (following `include` lines) and appends its cases. Errors read
 * "file:line: problem". Returns 0 or -1. */
int case_parse_file(const char *path, struct case_set *set, struct hb_err *err);
/* Parses catalogue text held in memory; `path` names it in messages and anchors includes. */
int case_parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err);
void case_set_free(struct case_set *set);
/* Appends a case (the name index follows). */
void case_set_push(struct case_set *set, const struct hb_case *c);
/* Parses one case line (comments and includes already handled) into set; "file:line:
 * problem" on error. */
int case_parse_line(char *text, const char *file, int line, struct case_set *set, struct hb_err *err);
/* Index of the case named `name`, or -1. */
int case_set_find(const struct case_set *set, const char *name);
/* A custom case's sizes as its line gives them: "rows=4 cols=7" ("" for other ops), and their
 * product (1 with none): about its work, for the order of a run. */
void case_sizes_text(const struct hb_case *c, char *buf, size_t len);
double case_size_product(const struct hb_case *c);

#endif
