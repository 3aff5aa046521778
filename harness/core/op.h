/* SPDX-License-Identifier: MIT */
/* op.h: the ops as one table. Everything that differs between sgemm, sgemm_strided, reduce and
 * custom lives in one struct op_desc per op (op_gemm.c, op_reduce.c, custom_data.c): its case
 * keys, the size variables a grid may use, how its inputs and references are made, how its
 * buffers are laid out, how its outputs are checked and how a case is described. The rest of
 * the core asks this table, so adding an op is one new op_<name>.c, a line in op.c, and case
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

struct op_desc {
    const char *name;
    const char *size_keys;     /* the size keys a case line takes: "M N K" */
    const char *required_keys; /* those it must give */
    const char *grid_vars;     /* letters a manifest grid may divide by: "MNK" */
    const char *unit;          /* what the checked output elements are: "elements", "partials" */
    int gemm;                  /* an M x N x K product */
    int matrix_output;         /* the output is rows x columns (heat maps fold both); else a list */
    int has_total;             /* the outputs are partials of one total (its error is reported) */
    int takes_chunk;           /* its manifests may say `chunk` (reduce.h says when they must) */
    /* Its prepare forks (a C reference runs in a child): plan.c runs it before the reference
     * threads start, as a fork while OpenBLAS computes on another thread hangs in OpenBLAS's
     * fork handler. */
    int prepare_forks;
    /* The words a manifest's `args` may use (NULL-terminated), and the signature of a kernel
     * that declares none: the op's ABI (kernels/README.md). */
    const struct op_param *params;
    const char *default_args;
    /* Optional: the words of kernel k where they depend on its form (a reduction's identity is
     * a float or an integer by its type); the same names and buffers as params. */
    const struct op_param *(*params_of)(const struct kern_desc *k);
    /* Optional: completes and checks one case after its sizes are set (defaults, limits);
     * -1 with "where: problem" in err. */
    int (*complete_case)(struct hb_case *c, const char *where, struct hb_err *err);
    /* Inputs for every selected kernel of `ks`, and what a layout needs (arena_calloc). */
    void (*prepare)(struct case_data *d, const struct kern_set *ks);
    /* Every reference they are judged against, after prepare (arena_calloc_own, and ref.h's
     * arrays wherever ref_set_keep says). */
    void (*reference)(struct case_data *d, const struct kern_set *ks);
    void (*release)(struct case_data *d);
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
    /* Optional: what a report row says of kernel k's view of the case (sgemm: its alpha, beta
     * and layout). */
    void (*note)(const struct case_data *d, const struct kern_desc *k, struct rep_result *r);
    /* Optional: bytes of case c's buffers where they depend on the kernels that run it (custom);
     * without it the run sizes a case from its M, N, K or n. */
    double (*case_bytes)(const struct hb_case *c, const struct kern_set *ks);
    /* The case's parameters for a report line: "17x31x9 lda 18 ldb 32 ldc 32". */
    void (*describe)(const struct rep_result *r, char *buf, size_t len);
    /* One output element by its indices: "C[3][4]", "partial 3". */
    void (*name_element)(long i, long j, char *buf, size_t len);
};

const struct op_desc *op_get(enum hb_op op);
const char *op_name(enum hb_op op);
int op_parse(const char *s, enum hb_op *out);
/* sgemm or sgemm_strided: an M x N x K product. */
int op_is_gemm(enum hb_op op);
/* Index of `name` in the op's signature vocabulary, or -1. */
int op_param_find(enum hb_op op, const char *name);

/* Makes d's inputs, and its references unless `references` is 0 (a process that runs kernels
 * itself, a sanitized group's child, needs the inputs alone), then sets d->ready (another
 * thread may be waiting on it). */
void op_prepare(struct case_data *d, const struct kern_set *ks, int references);
void op_release(struct case_data *d);

extern const struct op_desc op_sgemm, op_sgemm_strided, op_reduce, op_custom;

#endif
