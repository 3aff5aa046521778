/* SPDX-License-Identifier: MIT */
/* op.c: the op table (op.h) and the names every layer shares. The ops themselves live in
 * op_gemm.c, op_reduce.c and custom_data.c. */
#include "op.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "case.h"

static const struct op_desc *const op_table[OP_COUNT] = {
    [OP_SGEMM] = &op_sgemm,
    [OP_REDUCE] = &op_reduce,
    [OP_SGEMM_STRIDED] = &op_sgemm_strided,
    [OP_CUSTOM] = &op_custom,
};

const struct op_desc *op_get(enum hb_op op) { return op < OP_COUNT ? op_table[op] : NULL; }

const char *op_name(enum hb_op op) { return op < OP_COUNT ? op_table[op]->name : "?"; }

int op_parse(const char *s, enum hb_op *out)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (!strcmp(s, op_table[i]->name)) {
            *out = (enum hb_op)i;
            return 0;
        }
    return -1;
}

int op_is_gemm(enum hb_op op) { return op < OP_COUNT && op_table[op]->gemm; }

int op_param_find(enum hb_op op, const char *name)
{
    const struct op_param *p = op < OP_COUNT ? op_table[op]->params : NULL;
    for (int i = 0; p && p[i].name; i++)
        if (!strcmp(p[i].name, name))
            return i;
    return -1;
}

void op_prepare(struct case_data *d, const struct kern_set *ks, int references)
{
    op_get(d->c->op)->prepare(d, ks);
    if (references)
        op_get(d->c->op)->reference(d, ks);
    atomic_store_explicit(&d->ready, 1, memory_order_release);
}

void op_release(struct case_data *d)
{
    op_get(d->c->op)->release(d);
    for (int i = 0; i < d->n_in; i++)
        arena_free(d->in[i]);
    d->n_in = 0;
}
