/* SPDX-License-Identifier: MIT */
/* op.h: the ops as one table. Everything that differs between sgemm, sgemm_strided, reduce and
 * custom lives in one struct op_desc per op (op_gemm.c, op_reduce.c, custom_data.c): its case
 * keys and scalars, the size variables a grid may use, how its inputs and references are made,
 * how its buffers are laid out, how its outputs are checked, how a case is described, shrunk,
 * costed and timed by bench. Nothing outside an op's own files names an op or its sizes
 * (tests/op_names.py counts them, in tests/integration/layers.sh), so adding an op is one new
 * op_<name>.c, its enum value and extern here, its line in op.c's table, its tests and case
 * lines. */
#ifndef HB_OP_H
#define HB_OP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "util.h"

enum hb_op { OP_SGEMM, OP_REDUCE, OP_SGEMM_STRIDED, OP_CUSTOM, OP_COUNT };

struct hb_case;
struct kern_desc;
struct kern_set;
struct cmp_result;
struct rep_result;

/* One case's inputs and references, made once in the parent, so every kernel, backend and
 * width shares them: the inputs (and this record) in memory the workers share read-only, the
 * references in memory only the parent has (arena.h). */
#define OP_MAX_INPUTS 6
struct case_data {
    const struct hb_case *c;
    int used;         /* some selected kernel runs it */
    atomic_int ready; /* inputs and references made (threads make them while the run starts) */
    int n_in;
    float *in[OP_MAX_INPUTS]; /* inputs as laid out for kernels (row strides, padding) */
    size_t in_n[OP_MAX_INPUTS];
    void *ref; /* the op's references: NULL in a worker's view, or pointing where it has nothing */
    /* While prepare runs: the kernels some group of the run runs this case with, bit i for
     * kernel i of the set; NULL: every kernel that takes it. An op that makes data and
     * references per kernel (custom) makes them for these alone. */
    const unsigned char *runs;
};

/* What a buffer is to a launch. An input is uploaded once and must come back unchanged; an
 * output starts as its data (or the poison) before every launch, is compared and must repeat
 * bit for bit; scratch starts as its data before every launch and only its guard bands are
 * checked. */
enum op_role { OP_ROLE_IN, OP_ROLE_OUT, OP_ROLE_SCRATCH };

/* One launch's buffers in the op's argument order, and every integer and float of the op's
 * vocabulary by slot (struct op_param): the testbed passes the ones the kernel declares, in
 * its order. */
struct op_layout {
    int n_bufs;
    const void *data[HB_MAX_BUF_ARGS];   /* initial contents; NULL: the poison (an output) */
    unsigned char role[HB_MAX_BUF_ARGS]; /* enum op_role: an input unless the op says */
    unsigned char type[HB_MAX_BUF_ARGS]; /* enum hb_type: f32 unless the op says */
    /* A pure output (custom's role out): data is its type's poison, and the testbed starts odd
     * repeat launches from the other one (types.h), so that an element no launch writes shows
     * as such even where the reference holds the poison's value (op_desc.never_written). */
    unsigned char pure_out[HB_MAX_BUF_ARGS];
    size_t bytes[HB_MAX_BUF_ARGS];
    int n_ints;
    int32_t ints[HB_MAX_INT_ARGS];
    int n_floats;
    float floats[HB_MAX_FLOAT_ARGS];
};

/* One word of a kernel's declared signature (manifest `args`): its name, how it is passed, and
 * which of the layout's buffers, integers or floats (by kind) it is. */
struct op_param {
    const char *name;
    unsigned char kind; /* enum hb_param_kind */
    unsigned char slot;
};

/* How `harness bench` times an op's kernels (cmd/bench.c). */
enum op_bench_rate {
    OP_BENCH_FLOPS, /* an n x n x n product at each --sizes, TFLOPS, against the vendor library */
    OP_BENCH_BYTES, /* n elements in (--reduce-n), GB/s of the bytes it moves, against a copy */
};
struct op_bench {
    enum op_bench_rate rate;
    /* The section's heading: what is timed, on what data, and how the rate counts. */
    void (*heading)(char *buf, size_t len, int runs, long n);
    /* The case a point of size n runs (uniform data, seed n; sgemm: alpha 1, beta 0): 0, or -1
     * with why when kernel k (NULL: the vendor library) cannot be timed at that size. */
    int (*point)(const struct kern_desc *k, long n, struct hb_case *c, char *why, size_t len);
    /* One launch's work on c: its flops (OP_BENCH_FLOPS) or the bytes it reads and writes. */
    double (*work)(const struct kern_desc *k, const struct hb_case *c);
};

struct op_desc {
    const char *name;
    const char *size_keys;     /* the size keys a case line takes, in its order: "M N K" */
    const char *required_keys; /* those it must give */
    const char *scalar_keys;   /* the float keys a case line may give: "alpha beta" ("" none) */
    /* Its case lines name their own sizes (custom: rows=4 cols=7, whatever its kernels call
     * them): records give them as text (`sizes`), not in the size columns (op_size_columns). */
    int named_sizes;
    const char *grid_vars; /* letters a manifest grid may divide by: "MNK" */
    const char *unit;      /* what the checked output elements are: "elements", "partials" */
    int takes_layout;      /* its manifests may say `layout` (rows or columns) */
    int has_total;         /* the outputs are partials of one total (its error is reported) */
    int takes_chunk;       /* its manifests may say `chunk` (reduce.h says when they must) */
    /* Its kernels declare their own sizes, buffers, scalars and grid (custom.h): the manifest's
     * keys for those apply to it alone. */
    int declares_signature;
    /* The backends' vendor library (hb_backend.vendor_sgemm) runs its cases: a second oracle,
     * and bench's yardstick for it. */
    int vendor;
    /* Its prepare forks (a C reference runs in a child): plan.c runs it before the reference
     * threads start, as a fork while OpenBLAS computes on another thread hangs in OpenBLAS's
     * fork handler. */
    int prepare_forks;
    /* The words a manifest's `args` may use (NULL-terminated), and the signature of a kernel
     * that declares none: the op's ABI (kernels/README.md). */
    const struct op_param *params;
    const char *default_args;
    /* Words a declared `args` must list besides the buffers ("lda ldb ldc"), and why ("cases
     * need their strides"); NULL: none. */
    const char *args_needed, *args_needed_why;
    /* Optional: the words of kernel k where they depend on its form (a reduction's identity is
     * a float or an integer by its type); the same names and buffers as params. */
    const struct op_param *(*params_of)(const struct kern_desc *k);
    /* Optional: completes and checks one case after its sizes are set: a size key the line did
     * not give is -1 until here (0 after), and a scalar not given holds 0 (defaults, limits);
     * -1 with "where: problem" in err. */
    int (*complete_case)(struct hb_case *c, const char *where, struct hb_err *err);
    /* The sizes --shrink makes smaller ("M N K"; NULL: every size of the case), and optionally
     * how the others follow them from the case `from` a candidate was made of (sgemm_strided
     * keeps each stride's padding past its row). */
    const char *shrink_keys;
    void (*shrink_follow)(const struct hb_case *from, struct hb_case *to);
    /* A case's work, for the order of a run and its cuts: multiply-adds and elements made,
     * copied and checked on the host. */
    void (*work)(const struct hb_case *c, double *madds, double *elements);
    /* Bytes of case c's buffers, the largest set among the kernels of ks that run it. */
    double (*case_bytes)(const struct hb_case *c, const struct kern_set *ks);
    /* Inputs for every selected kernel of `ks`, and what a layout needs (arena_calloc). */
    void (*prepare)(struct case_data *d, const struct kern_set *ks);
    /* Every reference they are judged against, after prepare (arena_calloc_own, and ref.h's
     * arrays wherever ref_set_keep says). */
    void (*reference)(struct case_data *d, const struct kern_set *ks);
    void (*release)(struct case_data *d);
    /* Optional: why prepare could not make kernel k's data on case d (a custom buffer its
     * sizes cannot size), or NULL. */
    const char *(*data_error)(const struct case_data *d, const struct kern_desc *k);
    /* Buffers, integers and floats for kernel k (NULL: the vendor library) on case d. */
    void (*layout)(const struct case_data *d, const struct kern_desc *k, struct op_layout *l);
    /* Optional (NULL: none). On the (first) output's image before upload: what else it holds
     * (padding between rows or columns); and after a launch, damage to that: CLS_OOB with the
     * byte offset, once. */
    void (*init_output)(const struct case_data *d, const struct kern_desc *k, void *out);
    void (*check_padding)(const struct case_data *d, const struct kern_desc *k, const void *out, int out_arg,
                          struct cmp_result *cmp);
    /* Error figures of the outputs against the references: got[i] is buffer i's data after the
     * launch, in the layout's order. A pure function of them and d. */
    void (*compare)(const struct case_data *d, const struct kern_desc *k, const void *const got[],
                    struct cmp_result *cmp);
    /* Optional, for an op with pure outputs: the first launch's outputs and those of a repeat
     * that started them as the other poison. An element that held each launch's poison was never
     * written; those the first launch's comparison let pass (the reference holds the poison's
     * value there) are added to cmp as unwritten. */
    void (*never_written)(const struct case_data *d, const struct kern_desc *k, const void *const first[],
                          const void *const again[], struct cmp_result *cmp);
    /* Optional: what a report row says of kernel k's view of the case (sgemm: the alpha and beta
     * it computes with, its storage). */
    void (*note)(const struct case_data *d, const struct kern_desc *k, struct rep_result *r);
    /* The case's parameters for a report line: "17x31x9 lda 18 ldb 32 ldc 32". */
    void (*describe)(const struct rep_result *r, char *buf, size_t len);
    /* One output element by its indices: "C[3][4]", "partial 3". */
    void (*name_element)(long i, long j, char *buf, size_t len);
    /* Optional: the rows and columns the output is (sgemm's C, M x N), for the HTML heat map;
     * without it, a list. */
    void (*heat_shape)(const struct rep_result *r, long *rows, long *cols);
    /* How bench times its kernels; NULL: it does not. */
    const struct op_bench *bench;
};

/* The size columns of a result record (docs/json-schema.md), in its order: every size of an
 * op whose cases do not name their own is one of them; a record shows 0 for one it lacks. */
#define OP_SIZE_COLUMNS 7
extern const char *const op_size_columns[OP_SIZE_COLUMNS];

const struct op_desc *op_get(enum hb_op op);
const char *op_name(enum hb_op op);
int op_parse(const char *s, enum hb_op *out);
/* The op the vendor library runs (op_desc.vendor). */
enum hb_op op_vendor(void);
/* The names of the ops `pick` accepts (with `word`; NULL: every op), for a message, the last
 * two joined by `last`: "sgemm and sgemm_strided" (" and "); "" when it accepts none. */
void op_names_where(int (*pick)(const struct op_desc *op, const char *word), const char *word, const char *last,
                    char *buf, size_t len);
/* Whether `word` is one of the space-separated `words` (NULL: none). */
int op_word_listed(const char *words, const char *word);
/* Case c as the run's selection fingerprint has always read it (plan_account.c), so shards
 * written before the sizes were generic still merge with today's. */
void op_case_fingerprint(const struct hb_case *c, char *buf, size_t len);
/* Index of `name` in the op's signature vocabulary, or -1. */
int op_param_find(enum hb_op op, const char *name);

/* Makes d's inputs, and its references unless `references` is 0 (a process that runs kernels
 * itself, a sanitized group's child, needs the inputs alone), then sets d->ready (another
 * thread may be waiting on it). */
void op_prepare(struct case_data *d, const struct kern_set *ks, int references);
void op_release(struct case_data *d);

extern const struct op_desc op_sgemm, op_sgemm_strided, op_reduce, op_custom;

#endif
