/* SPDX-License-Identifier: MIT */
/* custom_data.c: the custom op (op.h, custom.h). A case's data is made per kernel that runs it
 * (a kernel and its broken twin share one): each buffer sized from its length expression,
 * inputs filled from the case's seed (floats by its dist, integers 0..63, or the buffer's
 * init), outputs as the type's poison, scratch as zeros; then the reference's outputs
 * (custom_ref.c). Lays out, compares (custom_compare.c) and describes; runs no kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "compare.h"
#include "custom.h"
#include "gen.h"
#include "manifest.h"
#include "result.h"
#include "text.h"

/* A case's data: one cus_data per distinct kernel (d->ref). */
struct cus_case {
    int n;
    struct cus_data **kd;
};

/* Kernel k's data on case d: its own, or its twin's. */
static const struct cus_data *cus_find(const struct case_data *d, const struct kern_desc *k)
{
    const struct cus_case *cc = d->ref;
    for (int i = 0; cc && i < cc->n; i++)
        if (cc->kd[i]->k == k || cus_same_data(cc->kd[i]->k, k))
            return cc->kd[i];
    return NULL;
}

/* An input's (or inout's) first contents. */
static void cus_fill(const struct hb_case *c, const struct cus_buffer *b, int stream, const long *lohi, void *out,
                     size_t n)
{
    const struct ty_info *t = ty_get(b->type);
    if (b->init == CUS_INIT_DEFAULT && b->type == TY_F32) {
        gen_fill(out, n, c, (long)n, stream); /* as the f32 below, without the detour */
        return;
    }
    double *v = xcalloc(n + 1, sizeof *v);
    if (b->init == CUS_INIT_RANGE)
        gen_uniform(v, n, c, stream, (double)lohi[0], (double)lohi[1], !t->is_float);
    else if (b->init == CUS_INIT_IOTA)
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(b->type == TY_U8 ? i % 256 : i);
    else if (b->init == CUS_INIT_DEFAULT && !t->is_float)
        gen_uniform(v, n, c, stream, 0, CUS_INT_DEFAULT_HI, 1);
    if (b->init == CUS_INIT_DEFAULT && t->is_float) {
        /* As a reduction of the buffer's whole length would get them: exact data stays exact
         * summed in any order. */
        float *f = xcalloc(n + 1, sizeof *f);
        gen_fill(f, n, c, (long)n, stream);
        for (size_t i = 0; i < n; i++)
            v[i] = f[i];
        free(f);
    }
    for (size_t i = 0; i < n; i++)
        ty_store(b->type, (char *)out + i * t->size, v[i]);
    free(v);
}

/* Buffer b's length on this case, and its init range; -1 with the reason in kd->error, which
 * names the declaration and its manifest line (what no case could give is refused at parse). */
static int cus_size(const struct cus_buffer *b, struct cus_data *kd, size_t *count, long lohi[2])
{
    struct hb_err err = {{0}};
    long len = 0;
    const char *what = "length";
    int bad = cus_expr_eval(&b->len, kd->sizes, &len, &err);
    if (!bad && (len < 0 || len > CUS_MAX_ELEMS))
        bad = 1, err_set(&err, "%ld elements (0 to %ld)", len, CUS_MAX_ELEMS);
    if (!bad && b->init == CUS_INIT_RANGE) {
        what = "init range";
        bad = cus_expr_eval(&b->lo, kd->sizes, &lohi[0], &err) || cus_expr_eval(&b->hi, kd->sizes, &lohi[1], &err);
        if (!bad && lohi[0] >= lohi[1])
            bad = 1, err_set(&err, "empty: %ld to %ld", lohi[0], lohi[1]);
    }
    if (bad)
        txt_printf(kd->error, sizeof kd->error, "buffer %s (%s:%d): %s: %s on this case", b->text, kd->k->custom->file,
                   b->line, what, err.msg);
    *count = bad ? 1 : (size_t)len;
    return bad ? -1 : 0;
}

void cus_data_make(const struct kern_desc *k, const struct hb_case *c, struct cus_data *kd)
{
    const struct cus_desc *cd = k->custom;
    kd->k = k;
    cus_case_sizes(cd, c, kd->sizes);
    for (int i = 0; i < cd->n_bufs; i++) {
        const struct cus_buffer *b = &cd->bufs[i];
        const struct ty_info *t = ty_get(b->type);
        long lohi[2] = {0, 0};
        int bad = cus_size(b, kd, &kd->count[i], lohi);
        size_t n = kd->count[i];
        kd->init[i] = arena_calloc(n + 1, t->size);
        if (b->role == CUS_OUT)
            ty_fill_bits(b->type, kd->init[i], t->poison, n);
        else if (!bad && b->role != CUS_SCRATCH && b->init != CUS_INIT_ZERO)
            cus_fill(c, b, i, lohi, kd->init[i], n);
    }
}

static void cus_prepare(struct case_data *d, const struct kern_set *ks)
{
    struct cus_case *cc = arena_calloc(1, sizeof *cc);
    cc->kd = arena_calloc((size_t)ks->n + 1, sizeof *cc->kd);
    d->ref = cc;
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        int unrun = d->runs && !(d->runs[i / 8] & (1u << (i % 8))); /* no group runs it: not selected */
        if (!k->custom || unrun || !kern_runs_case(k, d->c) || cus_find(d, k))
            continue;
        struct cus_data *kd = arena_calloc(1, sizeof *kd);
        cus_data_make(k, d->c, kd);
        cc->kd[cc->n++] = kd;
    }
}

/* Each distinct kernel's expected outputs, from its oracle or its C reference, in the parent
 * alone (the inputs are prepare's). */
static void cus_op_reference(struct case_data *d, const struct kern_set *ks)
{
    (void)ks;
    struct cus_case *cc = d->ref;
    for (int i = 0; cc && i < cc->n; i++) {
        struct cus_data *kd = cc->kd[i];
        if (!kd->error[0] && kd->k->custom->oracle_k)
            cus_oracle_run(kd->k, d->c, kd);
        else if (!kd->error[0])
            cus_reference(kd->k, d->c, kd);
    }
}

static void cus_release(struct case_data *d)
{
    struct cus_case *cc = d->ref;
    for (int i = 0; cc && i < cc->n; i++) {
        for (int b = 0; b < HB_MAX_BUF_ARGS; b++)
            arena_free(cc->kd[i]->init[b]), arena_free(cc->kd[i]->expect[b]);
        arena_free(cc->kd[i]);
    }
    if (cc)
        arena_free(cc->kd);
    arena_free(cc);
    d->ref = NULL;
}

static void cus_layout(const struct case_data *d, const struct kern_desc *k, struct op_layout *l)
{
    cus_layout_of(k, cus_find(d, k), l);
}

/* The integers are the sizes then the integer scalars, the floats the float scalars
 * (cus_params' slots). */
void cus_layout_of(const struct kern_desc *k, const struct cus_data *kd, struct op_layout *l)
{
    const struct cus_desc *cd = k->custom;
    static const unsigned char roles[] = {
        [CUS_IN] = OP_ROLE_IN, [CUS_OUT] = OP_ROLE_OUT, [CUS_INOUT] = OP_ROLE_OUT, [CUS_SCRATCH] = OP_ROLE_SCRATCH};
    memset(l, 0, sizeof *l);
    l->n_bufs = cd->n_bufs;
    for (int i = 0; i < cd->n_bufs; i++) {
        l->data[i] = kd->init[i], l->role[i] = roles[cd->bufs[i].role];
        l->pure_out[i] = cd->bufs[i].role == CUS_OUT;
        l->type[i] = (unsigned char)cd->bufs[i].type;
        l->bytes[i] = kd->count[i] * ty_get(cd->bufs[i].type)->size;
    }
    for (int i = 0; i < cd->n_sizes; i++)
        l->ints[l->n_ints++] = (int32_t)kd->sizes[i];
    for (int i = 0; i < cd->n_scalars; i++) {
        const struct cus_scalar *s = &cd->scalars[i];
        if (ty_get(s->type)->is_float)
            l->floats[l->n_floats++] = (float)s->value;
        else /* u32 as its bit pattern; every integer scalar fits 32 bits (custom_parse.c) */
            l->ints[l->n_ints++] = (int32_t)(uint32_t)(int64_t)s->value;
    }
}

static void cus_op_never_written(const struct case_data *d, const struct kern_desc *k, const void *const first[],
                                 const void *const again[], struct cmp_result *cmp)
{
    cus_never_written(k->custom, cus_find(d, k), first, again, cmp);
}

static void cus_op_compare(const struct case_data *d, const struct kern_desc *k, const void *const got[],
                           struct cmp_result *cmp)
{
    cus_compare(k->custom, cus_find(d, k), got, cmp);
}

/* A case without a reference: the row says why (the verdict is ERROR, reference-error). A
 * kernel judged by an oracle: the row names both kernels. */
static void cus_note(const struct case_data *d, const struct kern_desc *k, struct rep_result *r)
{
    const struct cus_data *kd = cus_find(d, k);
    const struct kern_desc *o = k->custom->oracle_k;
    if (kd && kd->error[0])
        txt_copy(r->why, sizeof r->why, kd->error);
    else if (o)
        txt_printf(r->why, sizeof r->why, "%s/%s against its oracle %s/%s (" CUS_ORACLE_HOW ")", k->lang, k->name,
                   o->lang, o->name, cus_oracle_width(o));
}

static void cus_describe(const struct rep_result *r, char *buf, size_t len)
{
    case_sizes_text(r->sizes, r->n_sizes, buf, len);
}

/* About an output element per combination of its sizes. */
static void cus_work(const struct hb_case *c, double *madds, double *elements)
{
    *madds = 0;
    *elements = case_size_product(c);
}

static const char *cus_data_error(const struct case_data *d, const struct kern_desc *k)
{
    const struct cus_data *kd = cus_find(d, k);
    return kd && kd->error[0] ? kd->error : NULL;
}

static void cus_name_element(long i, long j, char *buf, size_t len)
{
    if (j >= 0)
        snprintf(buf, len, "[%ld][%ld]", i, j);
    else
        snprintf(buf, len, "[%ld]", i);
}

/* Bytes of case c's largest set of buffers among the kernels that run it (0 when none). A
 * length the data cannot have (past CUS_MAX_ELEMS) counts nothing: its kernel's row on the
 * case is the ERROR that names the declaration, not a memory check blaming the case. */
static double cus_case_bytes(const struct hb_case *c, const struct kern_set *ks)
{
    double most = 0;
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        if (!k->custom || !kern_runs_case(k, c))
            continue;
        long sizes[CUS_MAX_SIZES], len;
        double bytes = 0;
        struct hb_err err;
        cus_case_sizes(k->custom, c, sizes);
        for (int b = 0; b < k->custom->n_bufs; b++)
            if (!cus_expr_eval(&k->custom->bufs[b].len, sizes, &len, &err) && len > 0 && len <= CUS_MAX_ELEMS)
                bytes += (double)len * ty_get(k->custom->bufs[b].type)->size;
        most = bytes > most ? bytes : most;
    }
    return most;
}

/* A custom kernel's words are its own (kern_params); the op has none. */
static const struct op_param cus_no_params[] = {{NULL, 0, 0}};

const struct op_desc op_custom = {
    .name = "custom",
    .size_keys = "",
    .required_keys = "",
    .scalar_keys = "",
    .named_sizes = 1,
    .declares_signature = 1,
    .grid_vars = "",
    .unit = "elements",
    .prepare_forks = 1,
    .params = cus_no_params,
    .default_args = "",
    .work = cus_work,
    .prepare = cus_prepare,
    .reference = cus_op_reference,
    .release = cus_release,
    .data_error = cus_data_error,
    .layout = cus_layout,
    .compare = cus_op_compare,
    .never_written = cus_op_never_written,
    .note = cus_note,
    .describe = cus_describe,
    .name_element = cus_name_element,
    .case_bytes = cus_case_bytes,
    .bench = &cus_bench,
};
