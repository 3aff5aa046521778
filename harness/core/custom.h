/* SPDX-License-Identifier: MIT */
/* custom.h: op = custom, a kernel described by its own buffers, sizes and scalars and judged
 * against the user's C reference or another kernel, its oracle (kernels/README.md). What a
 * manifest says of such a kernel (custom_parse.c, with the expressions of custom_expr.c), its
 * case data and references (custom_data.c, custom_ref.c) and its comparison
 * (custom_compare.c). Knows no backend: the run layer lends the oracle's runner. */
#ifndef HB_CUSTOM_H
#define HB_CUSTOM_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "case.h"
#include "op.h"
#include "types.h"
#include "util.h"

#define CUS_MAX_NAME 16
/* Sizes and integer scalars are passed as the launch's integers, float scalars as its floats. */
#define CUS_MAX_SIZES 6
#define CUS_MAX_SCALARS 8
#define CUS_MAX_TOKENS 24
/* Kernels index buffers with 32-bit integers, as they take their sizes: a buffer's length and
 * a grid dimension are at most this. */
#define CUS_MAX_ELEMS 2147483647L

/* An expression over a kernel's sizes, in postfix: whole numbers, size names, + - * / and
 * parentheses; / rounds up, as a grid's VAR/INT does. */
struct cus_expr {
    int n;
    struct cus_tok {
        char op;         /* 'n' a number, 'v' a size, or + - * / */
        signed char var; /* 'v': index into the kernel's sizes */
        long value;      /* 'n' */
    } t[CUS_MAX_TOKENS];
    signed char rows, cols; /* a length written SIZE*SIZE: a rows x cols matrix; else -1 */
};

enum cus_role { CUS_IN, CUS_OUT, CUS_INOUT, CUS_SCRATCH };
/* How an input (or inout) starts: the case's dist for floats and 0..63 for integers, zeros,
 * 0 1 2 ... (u8 wraps), or uniform in [lo, hi). */
enum cus_init { CUS_INIT_DEFAULT, CUS_INIT_ZERO, CUS_INIT_IOTA, CUS_INIT_RANGE };
#define CUS_INT_DEFAULT_HI 64

struct cus_buffer {
    char name[CUS_MAX_NAME];
    enum hb_type type;
    enum cus_role role;
    struct cus_expr len;
    enum cus_init init;
    struct cus_expr lo, hi;
    char text[96]; /* the declaration as written, for messages and equivalence */
    int line;      /* of the manifest's buffers key, for messages */
};

struct cus_scalar {
    char name[CUS_MAX_NAME];
    enum hb_type type; /* f32 f64 i32 u32 i64 u64 */
    double value;      /* as the kernel gets it: floats through a float, integers 32 bits */
};

enum cus_tol { CUS_TOL_EXACT, CUS_TOL_ULP, CUS_TOL_REL };

/* A parameter word of the kernel's signature (its `params` vocabulary, op.h's struct op_param):
 * a buffer (slot: its index), a size or an integer scalar (slot: its integer), a float scalar
 * (slot: its float). */
#define CUS_MAX_PARAMS (HB_MAX_BUF_ARGS + CUS_MAX_SIZES + CUS_MAX_SCALARS)

struct cus_desc {
    int n_sizes;
    char sizes[CUS_MAX_SIZES][CUS_MAX_NAME];
    int n_bufs;
    struct cus_buffer bufs[HB_MAX_BUF_ARGS];
    int n_scalars;
    struct cus_scalar scalars[CUS_MAX_SCALARS];
    struct cus_expr grid[3];
    char *file;                /* the manifest, for run-time messages */
    int grid_line;             /* of its grid key */
    char *ref_source, *ref_fn; /* reference = FILE FUNCTION (FILE absolute); NULL with an oracle */
    char *oracle;              /* oracle = [LANG/]KERNEL as written, NULL with a reference */
    int oracle_line;
    const struct kern_desc *oracle_k; /* it, once every manifest is read (cus_resolve) */
    enum cus_tol tol;
    double ulp, rel, abs;
    struct op_param params[CUS_MAX_PARAMS + 1];
    char names[CUS_MAX_PARAMS][CUS_MAX_NAME]; /* what params[].name points at */
};

/* The raw text of a custom kernel's own manifest keys, with their lines (0: not given). */
enum {
    CUS_KEY_SIZES,
    CUS_KEY_BUFFERS,
    CUS_KEY_SCALARS,
    CUS_KEY_REFERENCE,
    CUS_KEY_TOLERANCE,
    CUS_KEY_ORACLE,
    CUS_KEYS
};
struct cus_keys {
    const char *text[CUS_KEYS];
    int line[CUS_KEYS];
    const char *grid, *kernel; /* the generic grid key's text; the kernel's name */
    int grid_line, kernel_line;
};
extern const char *const cus_key_names[CUS_KEYS];

/* Parses a custom kernel's keys and its grid into a new desc (NULL with "file:line: problem");
 * dir anchors the reference's path. The kernel's args are parsed after, against its params. */
struct cus_desc *cus_parse(const struct cus_keys *keys, const char *path, const char *dir, struct hb_err *err);
void cus_free(struct cus_desc *d);
/* Finds each custom kernel's oracle among ks (all manifests read): a CUDA or HIP custom kernel
 * of the same sizes and buffers, named LANG/NAME or a NAME only one kernel has. -1 with
 * "file:line: problem". */
int cus_resolve(struct kern_set *ks, struct hb_err *err);

/* Expressions (custom_expr.c): parse against the sizes; evaluate with the case's values in
 * the kernel's size order, -1 with "problem" in err on overflow or division by zero. */
int cus_expr_parse(const char *text, const struct cus_desc *d, struct cus_expr *e, struct hb_err *err);
int cus_expr_eval(const struct cus_expr *e, const long *sizes, long *out, struct hb_err *err);
/* What an expression decides whatever the case: -1 with "problem" in err when it divides by a
 * constant 0 or a constant part overflows; else *constant says whether it uses no size, and
 * *value is then its value. */
int cus_expr_const(const struct cus_expr *e, int *constant, long *value, struct hb_err *err);

/* Whether case c gives exactly the kernel's sizes (by name, any order), and their values in
 * the kernel's order. */
int cus_takes_case(const struct cus_desc *d, const struct hb_case *c);
void cus_case_sizes(const struct cus_desc *d, const struct hb_case *c, long out[CUS_MAX_SIZES]);
/* The launch grid for case c; -1 with err when a dimension overflows or is past 2^31 - 1. */
int cus_grid(const struct cus_desc *d, const struct hb_case *c, unsigned grid[3], struct hb_err *err);
/* Whether two kernels need the same data and reference on every case (a kernel and its
 * broken twin): the same sizes, buffers, scalars, reference and argument order. */
int cus_same_data(const struct kern_desc *a, const struct kern_desc *b);

/* One custom kernel's data on one case (custom_data.c makes it, in memory workers share). */
struct cus_data {
    const struct kern_desc *k;
    long sizes[CUS_MAX_SIZES];
    size_t count[HB_MAX_BUF_ARGS]; /* elements of each buffer */
    void *init[HB_MAX_BUF_ARGS];   /* what each buffer starts as: inputs, an output's poison */
    void *expect[HB_MAX_BUF_ARGS]; /* outputs (out, inout) as the reference left them */
    char error[768];               /* why there is no reference, "" when there is one */
};

/* Every buffer of kernel k on case c as it starts (inputs filled, outputs as the poison), no
 * reference; kd->error says why a buffer cannot be made. Allocated with arena_calloc (the
 * heap where no arena is open). */
void cus_data_make(const struct kern_desc *k, const struct hb_case *c, struct cus_data *kd);

/* Runs kernel k's C reference (custom_ref.c), or its oracle (custom_oracle.c), on the inputs
 * of cd into cd->expect; on failure cd->error says what happened, naming the reference or the
 * oracle. A pure output (role out) left unwritten is such a failure: an element still holding
 * the poison after the run is unwritten when a second run, from the other poison (types.h),
 * leaves that one there too. A C reference is built on first use (the host compiler, once per
 * reference and signature per run). In the parent, never on two threads at once: both fork. */
void cus_reference(const struct kern_desc *k, const struct hb_case *c, struct cus_data *cd);
void cus_oracle_run(const struct kern_desc *k, const struct hb_case *c, struct cus_data *cd);
/* How long k's reference, or oracle k, may take on one case (its build too): its own `timeout`
 * key, else the run's --timeout, which the run layer sets before any case data is made (120 s,
 * --timeout's default, until then). */
void cus_set_timeout(double timeout_s);
double cus_timeout_s(const struct kern_desc *k);

/* Kernel k's launch layout on the data cd: buffers in declared order, the sizes then the
 * integer scalars as integers, the float scalars as floats. */
void cus_layout_of(const struct kern_desc *k, const struct cus_data *cd, struct op_layout *l);

/* What runs an oracle (the run layer's, set before any case data is made): kernel `oracle` on
 * case c's data cd at `width`, its outputs into outs (by buffer, allocated), within timeout_s.
 * 0, or -1 with why. */
typedef int (*cus_oracle_fn)(const struct kern_desc *oracle, const struct hb_case *c, const struct cus_data *cd,
                             void *const outs[], int width, double timeout_s, char *why, size_t len);
void cus_set_oracle_runner(cus_oracle_fn run);
/* The width oracle o runs at: 32 where it is written for 32 (or declares no widths), else the
 * first width it declares. One for every width its kernel runs at: the expected values are made
 * once per case, before any width runs. How it runs, for messages, with that width:
 * "the emulator at width 32, lockstep". */
int cus_oracle_width(const struct kern_desc *o);
#define CUS_ORACLE_HOW "the emulator at width %d, lockstep"

/* Error figures of kernel k's outputs (got, by buffer) against cd's (custom_compare.c). */
void cus_compare(const struct cus_desc *d, const struct cus_data *cd, const void *const got[], struct cmp_result *cmp);
/* op_desc.never_written: the elements of pure outputs that held the poison after the first launch
 * (first) and the other poison after a repeat started from it (again), where cd expects the
 * poison's value, added to cmp as unwritten (the first launch's comparison let them pass). */
void cus_never_written(const struct cus_desc *d, const struct cus_data *cd, const void *const first[],
                       const void *const again[], struct cmp_result *cmp);

/* How bench times a custom kernel (custom_bench.c). */
extern const struct op_bench cus_bench;

extern const struct op_desc op_custom;

#endif
