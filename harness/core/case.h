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

/* A case's sizes by name: its op's size keys in the op's order (op.h), or a custom line's own
 * names in the line's order; a custom kernel runs the cases that give exactly its own. */
#define CASE_MAX_SIZES 6
struct case_size {
    char name[16];
    long value;
};

/* Its scalars by name, in the op's order (op_desc.scalar_keys: sgemm's alpha and beta), each
 * the line's value or the op's default. */
#define CASE_MAX_SCALARS 2
struct case_scalar {
    char name[8];
    float value;
    int given; /* a case: the line gave it; a result: the kernel takes it */
};

struct hb_case {
    enum hb_op op;
    char name[96];
    int n_sizes;
    struct case_size sizes[CASE_MAX_SIZES];
    int n_scalars;
    struct case_scalar scalars[CASE_MAX_SCALARS];
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
/* The value of size `name` among n sizes (0 when there is none: a record's columns show an op
 * without the size as 0), and where it is (-1). */
long case_size_of(const struct case_size *s, int n, const char *name);
int case_size_find(const struct case_size *s, int n, const char *name);
static inline long case_size(const struct hb_case *c, const char *name)
{
    return case_size_of(c->sizes, c->n_sizes, name);
}
/* Sets size `name` (appended when new); -1 when n is already CASE_MAX_SIZES. */
int case_size_set(struct case_size *s, int *n, const char *name, long value);
/* Sizes as a line gives them: "rows=4 cols=7", "M=3 N=4 K=5" ("" for none), and their product
 * (1 with none): about a case's work, for the order of a run. */
void case_sizes_text(const struct case_size *s, int n, char *buf, size_t len);
double case_size_product(const struct hb_case *c);
/* The value of scalar `name` (0 when the case has none), and a pointer to it (NULL). */
float case_scalar(const struct hb_case *c, const char *name);
const struct case_scalar *case_scalar_find(const struct case_scalar *s, int n, const char *name);
/* Sets scalar `name` (appended when new, not given); -1 when n is already CASE_MAX_SCALARS. */
int case_scalar_set(struct case_scalar *s, int *n, const char *name, float value);

#endif
