/* manifest.h: kernel manifests (kernels/README.md): each kernel is a source file plus the
 * facts needed to launch and judge it. The core reads these; it hard-wires no kernel. */
#ifndef HB_MANIFEST_H
#define HB_MANIFEST_H

#include "backend.h"
#include "case.h"
#include "util.h"
#include "verdict.h"

#define KERN_MAX_WIDTHS 8
/* The longest kernel name a result row holds (struct rep_result.kernel). */
#define KERN_MAX_NAME 63

/* One grid dimension: a constant, or ceil(VAR / div) with VAR one of M N K n. */
struct kern_grid_term {
    char var; /* 0 for a constant */
    long value; /* the constant, or the divisor */
};

struct kern_desc {
    char *name;
    enum hb_op op;
    char *lang;
    char *source; /* absolute */
    char *entry;
    unsigned block[3];
    struct kern_grid_term grid[3];
    long chunk;     /* reduce: elements per block */
    int any_width;  /* written for every width */
    int n_widths;
    int widths[KERN_MAX_WIDTHS];
    unsigned expect; /* 0: must pass; else the class bits a canary must show */
    char *note;
    char *cases; /* glob restricting the cases it runs, NULL for all */
    long timeout_s; /* per-case timeout for this kernel, 0: the run's --timeout */
    int needs_racecheck; /* a race only a race detector shows: runs under --sanitize racecheck,
                            SKIP otherwise */
    char *file;  /* manifest, for messages */
    int line;
};

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
/* Grid for a case; 0 on success, -1 (with message) when a dimension overflows. */
int kern_grid(const struct kern_desc *k, const struct hb_case *c, unsigned grid[3], struct hb_err *err);
/* Whether the kernel runs this case (op matches and the cases glob accepts it). */
int kern_runs_case(const struct kern_desc *k, const struct hb_case *c);
/* What a backend's load() needs of k; build_dir is the build folder (path_exe_dir()). */
void kern_spec(const struct kern_desc *k, const char *build_dir, struct hb_kernel_spec *out);
/* "4 8 16 32" or "any" */
void kern_widths_str(const struct kern_desc *k, char *buf, unsigned len);

#endif
