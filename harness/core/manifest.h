/* SPDX-License-Identifier: MIT */
/* manifest.h: kernel manifests (kernels/README.md): each kernel is a source file plus the
 * facts needed to launch and judge it. The core reads these; it hard-wires no kernel. */
#ifndef HB_MANIFEST_H
#define HB_MANIFEST_H

#include "backend.h"
#include "case.h"
#include "util.h"
#include "verdict.h"

#define KERN_MAX_WIDTHS 8
/* Folders and macros a kernel's build is given (keys includes and defines). */
#define KERN_MAX_FLAGS 16
/* The longest kernel name a result row holds (struct rep_result.kernel). */
#define KERN_MAX_NAME 63

/* One grid dimension: a constant, or ceil(VAR / div) with VAR one of M N K n. */
struct kern_grid_term {
    char var;   /* 0 for a constant */
    long value; /* the constant, or the divisor */
};

/* One declared parameter: which word of the kernel's vocabulary (kern_params), and how it is
 * passed (an integer may be widened: `n:u64`). */
struct kern_arg {
    unsigned char param;
    unsigned char kind; /* enum hb_param_kind */
};

/* op = reduce: its element type, combine, output count and identity (reduce.h). */
enum red_combine { RED_SUM, RED_MAX, RED_MIN };
struct kern_reduce {
    unsigned char type;      /* enum hb_type of x: f32 (0) unless `type` says */
    unsigned char combine;   /* enum red_combine */
    unsigned char one_total; /* partials = 1: one output for the whole of x, from any grid */
    double identity;         /* what every output combines its elements with */
    uint64_t identity_bits;  /* it in the partials' type: a one-total output's first contents */
};

struct kern_desc {
    char *name;
    enum hb_op op;
    char *lang;
    char *source; /* absolute */
    char *entry;
    unsigned block[3];
    struct kern_grid_term grid[3];
    long chunk;    /* reduce: elements per block */
    int any_width; /* written for every width */
    int n_widths;
    int widths[KERN_MAX_WIDTHS];
    unsigned expect; /* 0: must pass; else the class bits a canary must show */
    char *note;
    char *cases;         /* glob restricting the cases it runs, NULL for all */
    long timeout_s;      /* per-case timeout for this kernel, 0: the run's --timeout */
    int needs_racecheck; /* a race only a race detector shows: runs under --sanitize racecheck,
                            SKIP otherwise */
    int user;            /* from a --manifest file, not a shipped one: a build failure is an ERROR */
    int n_args;          /* manifest `args`, the kernel's parameters in its order; 0: the op's ABI */
    struct kern_arg args[HB_MAX_PARAMS];
    int col_major;         /* layout = col (sgemm): matrices stored column by column */
    unsigned shared_bytes; /* dynamic shared memory per block */
    int nondeterministic;  /* deterministic = no: repeat launches may differ within the bound */
    struct kern_reduce reduce;
    struct cus_desc *custom; /* op = custom: its buffers, sizes, scalars, reference (custom.h) */
    int n_includes;          /* includes = DIR...: absolute folders, in search order */
    char *includes[KERN_MAX_FLAGS];
    int n_defines; /* defines = NAME[=VALUE]... */
    char *defines[KERN_MAX_FLAGS];
    char *file; /* manifest, for messages */
    int line;
    int n_siblings;  /* kern_link_siblings: the entries built from the same file and flags */
    char **siblings; /* borrowed from those kernels' entries; the array is this one's */
};

struct cus_desc;

struct kern_set {
    struct kern_desc *k;
    int n, cap;
};

int kern_parse_file(const char *path, struct kern_set *set, struct hb_err *err);
/* Appends a zeroed kernel to the set. */
struct kern_desc *kern_set_push(struct kern_set *set);
/* Reads every *.manifest one folder below dir (kernels/<lang>/x.manifest), in name order. */
int kern_discover(const char *dir, struct kern_set *set, struct hb_err *err);
void kern_set_free(struct kern_set *set);

/* Whether the kernel claims to be right at this width. */
int kern_written_for(const struct kern_desc *k, int width);
/* Whether the kernel is a known-bad canary at this width (expected to fail). */
int kern_expected_bad(const struct kern_desc *k, int width);
/* Grid for a case; 0 on success, -1 (with message) when a dimension overflows. A dimension
 * may be 0 (M = 0 for `grid = N/16 M/16`): such a grid is not launched. */
int kern_grid(const struct kern_desc *k, const struct hb_case *c, unsigned grid[3], struct hb_err *err);
/* Whether the kernel runs this case (op matches and the cases glob accepts it). */
int kern_runs_case(const struct kern_desc *k, const struct hb_case *c);
/* The kernel's signature: its declared `args`, else the op's ABI (k NULL: the vendor library's,
 * which is the op's ABI too). Returns the count. */
int kern_args(const struct kern_desc *k, enum hb_op op, struct kern_arg out[HB_MAX_PARAMS]);
/* The launch arguments of k (NULL: the vendor library) on layout l: every buffer in the op's
 * order, and the parameters k declares (else the op's ABI) in its order, integers and floats
 * taken from the layout's slots. Buffer offsets are the caller's (guard bands). What the
 * testbed and bench both pass, so no caller fills hb_args by hand. */
void kern_bind(const struct kern_desc *k, enum hb_op op, const struct op_layout *l, struct hb_args *a);
/* The words a kernel's `args` may use: a custom kernel's own, else its op's (k may be NULL).
 * kern_param_find: the index of `name` among them, or -1. */
const struct op_param *kern_params(const struct kern_desc *k, enum hb_op op);
int kern_param_find(const struct kern_desc *k, enum hb_op op, const char *name);
/* Whether kernel k (NULL: the vendor library) takes the vocabulary word `name` ("beta"). */
int kern_takes(const struct kern_desc *k, const char *name);
/* What a backend's load() needs of k; build_dir is the build folder (path_exe_dir()). */
void kern_spec(const struct kern_desc *k, const char *build_dir, struct hb_kernel_spec *out);
/* Gives each kernel the entries of the set's kernels built from its source with its language,
 * includes, defines and user flag (hb_kernel_spec.siblings), once the set is complete. */
void kern_link_siblings(struct kern_set *set);
/* "4 8 16 32" or "any" */
void kern_widths_str(const struct kern_desc *k, char *buf, unsigned len);

#endif
