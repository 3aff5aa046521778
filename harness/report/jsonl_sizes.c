/* SPDX-License-Identifier: MIT */
/* jsonl_sizes.c: a result's sizes and scalars, which it holds by name (result.h), in the JSON
 * lines' fixed columns and back (docs/json-schema.md): M N K n lda ldb ldc as numbers, 0 where
 * the op has no such size; the sizes of an op whose cases name their own as text ("rows=4
 * cols=7"), the columns then all 0; alpha and beta. Parses no JSON: jsonl.c checks each value's
 * type and hands it here, and jsonl_write.c writes what this returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl_table.h"

long jf_size_column(const struct rep_result *r, const char *key)
{
    return op_get(r->op)->named_sizes ? 0 : case_size_of(r->sizes, r->n_sizes, key);
}

void jf_sizes_text(const struct rep_result *r, char *buf, size_t len)
{
    case_sizes_text(r->sizes, r->n_sizes, buf, len);
}

float jf_scalar(const struct rep_result *r, const char *key)
{
    const struct case_scalar *s = case_scalar_find(r->scalars, r->n_scalars, key);
    return s ? s->value : 0.0f;
}

/* A column of 0 is what the writer gives an op without the size, so it sets none; an op whose
 * cases name their own sizes has them in its text alone (jsonl.c reads the op first). */
int jf_set_size(struct rep_result *r, const char *key, long value, struct hb_err *err)
{
    if (value && !op_get(r->op)->named_sizes && case_size_set(r->sizes, &r->n_sizes, key, value))
        return err_set(err, "\"%s\": more than %d sizes", key, CASE_MAX_SIZES), -1;
    return 0;
}

/* Each a C name, '=' and a whole number; the columns hold the sizes of any other op. */
int jf_set_sizes_text(struct rep_result *r, const char *key, char *text, struct hb_err *err)
{
    if (!op_get(r->op)->named_sizes)
        return 0;
    for (char *save = NULL, *tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        long value;
        if (!eq || eq == tok || eq - tok >= (long)sizeof r->sizes[0].name || parse_long(eq + 1, &value))
            return err_set(err, "\"%s\": expected name=value pairs, not %.40s", key, tok), -1;
        *eq = 0;
        if (case_size_set(r->sizes, &r->n_sizes, tok, value))
            return err_set(err, "\"%s\": more than %d sizes", key, CASE_MAX_SIZES), -1;
    }
    return 0;
}

int jf_set_scalar(struct rep_result *r, const char *key, double value, struct hb_err *err)
{
    if (case_scalar_set(r->scalars, &r->n_scalars, key, (float)value))
        return err_set(err, "\"%s\": more than %d scalars", key, CASE_MAX_SCALARS), -1;
    return 0;
}
