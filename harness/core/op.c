/* SPDX-License-Identifier: MIT */
/* op.c: the op table (op.h) and what every layer shares of it: names, the record's size
 * columns, lists of ops for messages. The ops themselves live in op_gemm.c, op_reduce.c and
 * custom_data.c; nothing here decides anything for one of them. */
#include "op.h"

#include <inttypes.h>
#include <stdio.h>
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

const char *const op_size_columns[OP_SIZE_COLUMNS] = {"M", "N", "K", "n", "lda", "ldb", "ldc"};

enum hb_op op_vendor(void)
{
    int i = 0;
    while (i < OP_COUNT && !op_table[i]->vendor)
        i++;
    return (enum hb_op)i;
}

int op_word_listed(const char *words, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = words; words && n && (p = strstr(p, word)); p += n)
        if ((p == words || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

void op_names_where(int (*pick)(const struct op_desc *op, const char *word), const char *word, const char *last,
                    char *buf, size_t len)
{
    int n = 0, picked[OP_COUNT];
    for (int i = 0; i < OP_COUNT; i++)
        if (!pick || pick(op_table[i], word))
            picked[n++] = i;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
                 !i           ? ""
                 : i == n - 1 ? last
                              : ", ",
                 op_table[picked[i]]->name);
}

/* The fingerprint's columns: the record's, with lda ldb ldc before n as they always stood; then
 * which scalars the line gave and the first two (sgemm's alpha and beta, each 0 for none). */
void op_case_fingerprint(const struct hb_case *c, char *buf, size_t len)
{
    static const int order[OP_SIZE_COLUMNS] = {0, 1, 2, 4, 5, 6, 3};
    int named = op_get(c->op)->named_sizes;
    unsigned given = 0;
    for (int i = 0; i < c->n_scalars; i++)
        given |= c->scalars[i].given ? 1u << i : 0;
    size_t n = (size_t)snprintf(buf, len, "%s %d", c->name, (int)c->op);
    for (int i = 0; i < OP_SIZE_COLUMNS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, " %ld", named ? 0 : case_size(c, op_size_columns[order[i]]));
    char sizes[256] = "";
    if (named)
        case_sizes_text(c->sizes, c->n_sizes, sizes, sizeof sizes);
    if (n < len)
        snprintf(buf + n, len - n, " [%s] %s %u %" PRIu64 " %u %a %a", sizes, case_dist_name(c->dist), c->specials,
                 c->seed, given, c->n_scalars > 0 ? (double)c->scalars[0].value : 0.0,
                 c->n_scalars > 1 ? (double)c->scalars[1].value : 0.0);
}

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
