/* SPDX-License-Identifier: MIT */
/* op_reduce.c: the reduce op (op.h). Block b writes partials[b], the sum of its `chunk`
 * elements of x; every partial is checked, not just the total. A case keeps one reference per
 * chunk length among the kernels that run it, all of it in the parent's own memory: the
 * record holds sums (a one-block case's total is its partial). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "case.h"
#include "compare.h"
#include "gen.h"
#include "manifest.h"
#include "op.h"
#include "ref.h"
#include "result.h"

#define REDUCE_MAX_CHUNKS 8

struct reduce_refs {
    int n;
    long chunks[REDUCE_MAX_CHUNKS];
    struct ref_reduce red[REDUCE_MAX_CHUNKS];
};

static void reduce_prepare(struct case_data *d, const struct kern_set *ks)
{
    const struct hb_case *c = d->c;
    d->in_n[0] = (size_t)c->n;
    d->in[0] = arena_calloc(d->in_n[0], sizeof(float));
    d->n_in = 1;
    /* Exact data must sum exactly over the largest chunk of any kernel. */
    long longest = 1;
    for (int i = 0; i < ks->n; i++)
        if (ks->k[i].op == OP_REDUCE && ks->k[i].chunk > longest)
            longest = ks->k[i].chunk;
    gen_fill(d->in[0], d->in_n[0], c, longest < c->n ? longest : c->n, 0);
}

static void reduce_reference(struct case_data *d, const struct kern_set *ks)
{
    const struct hb_case *c = d->c;
    struct reduce_refs *refs = arena_calloc_own(1, sizeof *refs);
    d->ref = refs;
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        if (k->op != OP_REDUCE || !kern_runs_case(k, c))
            continue;
        int have = 0;
        for (int j = 0; j < refs->n; j++)
            have |= refs->chunks[j] == k->chunk;
        if (!have && refs->n < REDUCE_MAX_CHUNKS) {
            refs->chunks[refs->n] = k->chunk;
            ref_reduce_compute(&refs->red[refs->n++], d->in[0], c->n, k->chunk);
        }
    }
}

static void reduce_release(struct case_data *d)
{
    struct reduce_refs *refs = d->ref;
    for (int j = 0; refs && j < refs->n; j++)
        ref_reduce_free(&refs->red[j]);
    arena_free(refs);
    d->ref = NULL;
}

static const struct ref_reduce *reduce_ref(const struct case_data *d, long chunk)
{
    const struct reduce_refs *refs = d->ref;
    for (int j = 0; j < refs->n; j++)
        if (refs->chunks[j] == chunk)
            return &refs->red[j];
    return NULL;
}

static void reduce_layout(const struct case_data *d, const struct kern_desc *k, struct op_layout *l)
{
    memset(l, 0, sizeof *l);
    l->n_bufs = 2, l->role[1] = OP_ROLE_OUT;
    l->data[0] = d->in[0], l->bytes[0] = d->in_n[0] * sizeof(float);
    l->bytes[1] = (size_t)((d->c->n + k->chunk - 1) / k->chunk) * sizeof(float); /* a partial per block */
    l->n_ints = 1;
    l->ints[0] = (int32_t)d->c->n;
}

static void reduce_compare(const struct case_data *d, const struct kern_desc *k, const void *const bufs[],
                           struct cmp_result *cmp)
{
    cmp_reduce(reduce_ref(d, k->chunk), bufs[1], d->c->dist == DIST_EXACT, cmp);
}

static void reduce_describe(const struct rep_result *r, char *buf, size_t len) { snprintf(buf, len, "n=%ld", r->n); }

static void reduce_name_element(long i, long j, char *buf, size_t len)
{
    (void)j;
    snprintf(buf, len, "partial %ld", i);
}

/* The signature vocabulary (kernels/README.md): slots index reduce_layout's buffers and ints. */
static const struct op_param reduce_params[] = {
    {"x", HB_PARAM_BUF, 0},
    {"partials", HB_PARAM_BUF, 1},
    {"n", HB_PARAM_I32, 0},
    {NULL, 0, 0},
};

const struct op_desc op_reduce = {
    .name = "reduce",
    .size_keys = "n",
    .required_keys = "n",
    .grid_vars = "n",
    .unit = "partials",
    .needs_chunk = 1,
    .has_total = 1,
    .params = reduce_params,
    .default_args = "x partials n",
    .prepare = reduce_prepare,
    .reference = reduce_reference,
    .release = reduce_release,
    .layout = reduce_layout,
    .compare = reduce_compare,
    .describe = reduce_describe,
    .name_element = reduce_name_element,
};
