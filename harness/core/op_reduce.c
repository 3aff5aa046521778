/* SPDX-License-Identifier: MIT */
/* op_reduce.c: the reduce op (op.h). Block b writes partials[b], the combine of its `chunk`
 * elements of x (or, with partials = 1, the kernel writes one total however its grid is cut);
 * every partial is checked, not just the total. x is f32, f64, f16, i32 or u32, the combine a
 * sum, max or min (reduce.h). A case keeps one input per type and one reference per form
 * among the kernels that run it, the references in the parent's own memory: float sums as
 * ref.h's sums and bounds, the rest exact (reduce_exact.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "case.h"
#include "compare.h"
#include "gen.h"
#include "manifest.h"
#include "op.h"
#include "reduce.h"
#include "ref.h"
#include "result.h"

#define REDUCE_MAX_REFS 16
/* Where each type's x lies among the case's inputs; the last holds the poison an f64
 * kernel's partials start as (the guard bands' own poison is a 4-byte pattern). */
enum { SLOT_F32, SLOT_F64, SLOT_F16, SLOT_I32, SLOT_U32, SLOT_F64_POISON, SLOTS };

/* One form's reference: chunk 0 for one total. */
struct reduce_ref {
    long chunk;
    struct kern_reduce form;
    int exact; /* ex, else sum */
    struct ref_reduce sum;
    struct red_exact ex;
};

struct reduce_refs {
    int n;
    struct reduce_ref r[REDUCE_MAX_REFS];
};

/* The one size of a reduce case (or record): x's length. */
static long reduce_n(const struct case_size *s, int n) { return case_size_of(s, n, "n"); }

static int type_slot(enum hb_type t)
{
    switch (t) {
    case TY_F64: return SLOT_F64;
    case TY_F16: return SLOT_F16;
    case TY_I32: return SLOT_I32;
    case TY_U32: return SLOT_U32;
    default: return SLOT_F32;
    }
}

/* Integer x: whole numbers from the case's seed, by its dist: small and of both signs
 * (sums stay far from overflow), all negative or near the top of u32 for cancel (a max that
 * starts from 0 instead of its identity shows), and the type's extremes sprinkled in for
 * special (sums then wrap, as two's complement does in every order). */
static void fill_int(void *out, enum hb_type t, const struct hb_case *c, size_t n)
{
    int u = t == TY_U32;
    double lo = u ? 0 : -1024, hi = u ? 2048 : 1024;
    if (c->dist == DIST_CANCEL)
        lo = u ? 4294967296.0 - 2048 : -2048, hi = u ? 4294967296.0 : 0;
    double *v = xcalloc(n + 1, sizeof *v);
    gen_uniform(v, n, c, 7, lo, hi, 1);
    static const double extremes[2][4] = {{-2147483648.0, 2147483647.0, 0, -1}, {0, 4294967295.0, 1, 2147483648.0}};
    for (size_t i = 0; c->dist == DIST_SPECIAL && i < n; i += 61)
        v[i] = extremes[u][(i / 61) % 4];
    for (size_t i = 0; i < n; i++)
        ty_store(t, (char *)out + i * 4, v[i]);
    free(v);
}

/* x in the slot of type t, from the float data for float types (f16 rounded to nearest). */
static void make_input(struct case_data *d, enum hb_type t)
{
    int s = type_slot(t);
    size_t n = d->in_n[SLOT_F32];
    if (d->in[s])
        return;
    d->in[s] = arena_calloc(n + 1, ty_get(t)->size);
    d->in_n[s] = n;
    if (!ty_get(t)->is_float)
        fill_int(d->in[s], t, d->c, n);
    for (size_t i = 0; ty_get(t)->is_float && i < n; i++)
        ty_store(t, (char *)d->in[s] + i * ty_get(t)->size, d->in[SLOT_F32][i]);
}

static void reduce_prepare(struct case_data *d, const struct kern_set *ks)
{
    const struct hb_case *c = d->c;
    long n = reduce_n(c->sizes, c->n_sizes);
    d->in_n[SLOT_F32] = (size_t)n;
    d->in[SLOT_F32] = arena_calloc(d->in_n[SLOT_F32], sizeof(float));
    d->n_in = SLOTS;
    /* Exact data must sum exactly over the largest chunk of any kernel (a total: all of x). */
    long longest = 1, f64_outputs = 0;
    for (int i = 0; i < ks->n; i++)
        if (ks->k[i].op == OP_REDUCE) {
            long len = ks->k[i].reduce.one_total ? n : ks->k[i].chunk;
            longest = len > longest ? len : longest;
        }
    gen_fill(d->in[SLOT_F32], d->in_n[SLOT_F32], c, longest < n ? longest : n, 0);
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        if (k->op != OP_REDUCE || !kern_runs_case(k, c))
            continue;
        make_input(d, (enum hb_type)k->reduce.type);
        if (k->reduce.type == TY_F64 && !k->reduce.one_total && red_outputs(k, n) > f64_outputs)
            f64_outputs = red_outputs(k, n);
    }
    if (f64_outputs) {
        d->in[SLOT_F64_POISON] = arena_calloc((size_t)f64_outputs, sizeof(double));
        d->in_n[SLOT_F64_POISON] = (size_t)f64_outputs;
        for (long b = 0; b < f64_outputs; b++)
            ty_store_bits(TY_F64, (double *)d->in[SLOT_F64_POISON] + b, ty_get(TY_F64)->poison);
    }
}

static int same_form(const struct reduce_ref *r, const struct kern_desc *k)
{
    return r->chunk == (k->reduce.one_total ? 0 : k->chunk) && r->form.type == k->reduce.type &&
           r->form.combine == k->reduce.combine && r->form.one_total == k->reduce.one_total &&
           r->form.identity_bits == k->reduce.identity_bits;
}

/* The reference of kernel k's form: exact, or a float sum with its bound. */
static void reduce_one_ref(const struct case_data *d, const struct kern_desc *k, struct reduce_ref *r)
{
    long n = reduce_n(d->c->sizes, d->c->n_sizes), chunk = k->reduce.one_total ? (n > 0 ? n : 1) : k->chunk;
    enum hb_type t = (enum hb_type)k->reduce.type;
    r->chunk = k->reduce.one_total ? 0 : k->chunk;
    r->form = k->reduce;
    r->exact = red_is_exact(&k->reduce) || (k->reduce.one_total && n == 0);
    if (r->exact) {
        red_exact_compute(&r->ex, &k->reduce, d->in[type_slot(t)], n, chunk);
    } else if (t == TY_F64) {
        ref_reduce_compute_f64(&r->sum, (const double *)d->in[SLOT_F64], n, chunk);
    } else if (t == TY_F16) { /* the terms are the halves, as floats */
        float *x = xcalloc((size_t)n + 1, sizeof *x);
        ty_to_c(TY_F16, d->in[SLOT_F16], x, (size_t)n);
        ref_reduce_compute(&r->sum, x, n, chunk);
        free(x);
    } else {
        ref_reduce_compute(&r->sum, d->in[SLOT_F32], n, chunk);
    }
}

static void reduce_reference(struct case_data *d, const struct kern_set *ks)
{
    struct reduce_refs *refs = arena_calloc_own(1, sizeof *refs);
    d->ref = refs;
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        if (k->op != OP_REDUCE || !kern_runs_case(k, d->c))
            continue;
        int have = 0;
        for (int j = 0; j < refs->n; j++)
            have |= same_form(&refs->r[j], k);
        if (!have && refs->n < REDUCE_MAX_REFS)
            reduce_one_ref(d, k, &refs->r[refs->n++]);
    }
}

static void reduce_release(struct case_data *d)
{
    struct reduce_refs *refs = d->ref;
    for (int j = 0; refs && j < refs->n; j++) {
        if (refs->r[j].exact)
            red_exact_free(&refs->r[j].ex);
        else
            ref_reduce_free(&refs->r[j].sum);
    }
    arena_free(refs);
    d->ref = NULL;
}

static void reduce_layout(const struct case_data *d, const struct kern_desc *k, struct op_layout *l)
{
    memset(l, 0, sizeof *l);
    /* The vendor library (k NULL) is a float block sum, as is a kernel that says no form. */
    static const struct kern_desc plain = {.chunk = 1};
    const struct kern_desc *f = k ? k : &plain;
    enum hb_type t = (enum hb_type)f->reduce.type, pt = red_partial_type(t);
    long n = reduce_n(d->c->sizes, d->c->n_sizes);
    l->n_bufs = 2, l->role[1] = OP_ROLE_OUT;
    l->type[0] = (unsigned char)t, l->type[1] = (unsigned char)pt;
    l->data[0] = d->in[type_slot(t)], l->bytes[0] = (size_t)n * ty_get(t)->size;
    l->bytes[1] = (size_t)red_outputs(f, n) * ty_get(pt)->size;
    /* One total starts as the identity (atomics add into it); partials as their poison. This
     * kernel record is the parent's, inherited by each worker at the same address. */
    l->data[1] = f->reduce.one_total ? (const void *)&f->reduce.identity_bits
                 : pt == TY_F64      ? (const void *)d->in[SLOT_F64_POISON]
                                     : NULL;
    l->n_ints = 2;
    l->ints[0] = (int32_t)n;
    l->ints[1] = red_identity_int(&f->reduce);
    l->n_floats = 1;
    l->floats[0] = red_identity_float(&f->reduce);
}

static void reduce_compare(const struct case_data *d, const struct kern_desc *k, const void *const bufs[],
                           struct cmp_result *cmp)
{
    const struct reduce_refs *refs = d->ref;
    for (int j = 0; j < refs->n; j++) {
        const struct reduce_ref *r = &refs->r[j];
        if (!same_form(r, k))
            continue;
        int exact_data = d->c->dist == DIST_EXACT;
        if (r->exact)
            red_exact_compare(&r->ex, bufs[1], cmp);
        else
            cmp_reduce_typed(&r->sum, red_partial_type((enum hb_type)r->form.type), bufs[1], exact_data, cmp);
        return;
    }
    cmp->classes |= CLS_REFERENCE; /* more forms on one case than kept: never judged unseen */
}

static double reduce_case_bytes(const struct hb_case *c, const struct kern_set *ks)
{
    long n = reduce_n(c->sizes, c->n_sizes);
    double bytes = 4.0 * (double)n * 1.01;
    for (int i = 0; i < ks->n; i++)
        if (ks->k[i].op == OP_REDUCE && kern_runs_case(&ks->k[i], c) && ks->k[i].reduce.type != TY_F32)
            bytes += (double)ty_get((enum hb_type)ks->k[i].reduce.type)->size * (double)n;
    return bytes;
}

static void reduce_work(const struct hb_case *c, double *madds, double *elements)
{
    *madds = 0;
    *elements = (double)reduce_n(c->sizes, c->n_sizes);
}

static void reduce_describe(const struct rep_result *r, char *buf, size_t len)
{
    snprintf(buf, len, "n=%ld", reduce_n(r->sizes, r->n_sizes));
}

static void reduce_name_element(long i, long j, char *buf, size_t len)
{
    (void)j;
    snprintf(buf, len, "partial %ld", i);
}

/* The signature vocabulary (kernels/README.md): slots index reduce_layout's buffers, ints and
 * floats. The identity is a float for float types, 32 bits for integers. */
static const struct op_param reduce_params[] = {
    {"x", HB_PARAM_BUF, 0}, {"partials", HB_PARAM_BUF, 1}, {"n", HB_PARAM_I32, 0}, {"identity", HB_PARAM_F32, 0},
    {NULL, 0, 0},
};
static const struct op_param reduce_params_int[] = {
    {"x", HB_PARAM_BUF, 0}, {"partials", HB_PARAM_BUF, 1}, {"n", HB_PARAM_I32, 0}, {"identity", HB_PARAM_I32, 1},
    {NULL, 0, 0},
};

static const struct op_param *reduce_params_of(const struct kern_desc *k)
{
    return ty_get((enum hb_type)k->reduce.type)->is_float ? reduce_params : reduce_params_int;
}

static void reduce_bench_heading(char *buf, size_t len, int runs, long n)
{
    (void)runs;
    snprintf(buf, len, "Reductions (n = %ld floats; GB/s of input read; a copy counts bytes read plus written)", n);
}

/* x of n elements in the kernel's type. */
static int reduce_bench_point(const struct kern_desc *k, long n, struct hb_case *c, char *why, size_t len)
{
    (void)k, (void)why, (void)len;
    memset(c, 0, sizeof *c);
    c->op = OP_REDUCE;
    c->dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
    c->seed = (uint64_t)n;
    case_size_set(c->sizes, &c->n_sizes, "n", n);
    case_sizes_text(c->sizes, c->n_sizes, c->name, sizeof c->name);
    return 0;
}

/* x read, as n floats: the rate is input read, whatever the type (the copy's yardstick). */
static double reduce_bench_bytes(const struct kern_desc *k, const struct hb_case *c)
{
    (void)k;
    return (double)reduce_n(c->sizes, c->n_sizes) * sizeof(float);
}

static const struct op_bench reduce_bench = {OP_BENCH_BYTES, reduce_bench_heading, reduce_bench_point,
                                             reduce_bench_bytes};

const struct op_desc op_reduce = {
    .name = "reduce",
    .size_keys = "n",
    .required_keys = "n",
    .scalar_keys = "",
    .grid_vars = "n",
    .unit = "partials",
    .takes_chunk = 1,
    .has_total = 1,
    .params = reduce_params,
    .default_args = "x partials n",
    .params_of = reduce_params_of,
    .work = reduce_work,
    .case_bytes = reduce_case_bytes,
    .prepare = reduce_prepare,
    .reference = reduce_reference,
    .release = reduce_release,
    .layout = reduce_layout,
    .compare = reduce_compare,
    .describe = reduce_describe,
    .name_element = reduce_name_element,
    .bench = &reduce_bench,
};
