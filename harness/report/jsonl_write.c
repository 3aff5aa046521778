/* SPDX-License-Identifier: MIT */
/* jsonl_write.c: the field tables and the JSON lines writer. Figures JSON cannot hold (NaN,
 * Inf) are strings; seeds are decimal strings and hashes hex strings, since JSON numbers
 * past 2^53 lose bits in jq and JavaScript; every string is valid UTF-8 (text.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "jsonl.h"
#include "jsonl_table.h"
#include "text.h"

static int has_first_bad(const void *p) { return ((const struct rep_result *)p)->cmp.first_i >= 0; }
static int has_oob(const void *p) { return ((const struct rep_result *)p)->cmp.oob_buffer >= 0; }
static int has_total(const void *p)
{
    const struct rep_result *r = p;
    return op_get(r->op)->has_total && !r->cmp.no_total; /* a max or min has no sum */
}

/* An op whose cases name their own sizes gives them as text; any other's are the columns. */
static int has_sizes(const void *p)
{
    const struct rep_result *r = p;
    return op_get(r->op)->named_sizes && r->n_sizes > 0;
}
static int has_buffer(const void *p) { return ((const struct rep_result *)p)->cmp.first_buffer[0] != 0; }
static int has_values(const void *p) { return ((const struct rep_result *)p)->cmp.first_values[0] != 0; }
static int has_shape(const void *p) { return ((const struct rep_result *)p)->cmp.heat_rows > 0; }

static int has_layout(const void *p) { return ((const struct rep_result *)p)->layout[0] != 0; }
static int has_repeat(const void *p) { return ((const struct rep_result *)p)->cmp.repeat_ulp != 0; }

static int has_heat(const void *p)
{
    const struct rep_result *r = p;
    for (int i = 0; i < CMP_HEAT * CMP_HEAT; i++)
        if (r->cmp.heat[i])
            return 1;
    return 0;
}

/* clang-format off: the field tables read as tables */
#define R(key, type, field)                                                                                            \
    {                                                                                                                  \
        key, NULL, type, offsetof(struct rep_result, field), sizeof(((struct rep_result *)0)->field), 0, NULL          \
    }
#define RQ(key, type, field)                                                                                           \
    {                                                                                                                  \
        key, NULL, type, offsetof(struct rep_result, field), sizeof(((struct rep_result *)0)->field), 1, NULL          \
    }
#define RIF(key, obj, type, field, when)                                                                               \
    {                                                                                                                  \
        key, obj, type, offsetof(struct rep_result, field), sizeof(((struct rep_result *)0)->field), 0, when           \
    }

const struct jf_field jf_result[] = {
    RQ("backend", JF_TEXT, backend),
    R("device", JF_TEXT, device),
    R("device_index", JF_INT, device_index),
    R("driver", JF_TEXT, driver),
    RQ("kernel", JF_TEXT, kernel),
    RQ("lang", JF_TEXT, lang),
    R("user_manifest", JF_BOOL, user_manifest),
    RQ("width", JF_INT, width),
    RQ("op", JF_OP, op),
    RQ("case", JF_TEXT, case_name),
    RQ("verdict", JF_VERDICT, verdict),
    R("classes", JF_CLASSES, cmp.classes),
    R("why", JF_TEXT, why),
    R("schedule", JF_TEXT, schedule),
    R("binary", JF_TEXT, binary),
    /* The size columns (op.h's op_size_columns, docs/json-schema.md). */
    R("M", JF_SIZE, sizes),
    R("N", JF_SIZE, sizes),
    R("K", JF_SIZE, sizes),
    R("n", JF_SIZE, sizes),
    R("lda", JF_SIZE, sizes),
    R("ldb", JF_SIZE, sizes),
    R("ldc", JF_SIZE, sizes),
    RIF("sizes", NULL, JF_SIZES_TEXT, sizes, has_sizes),
    R("dist", JF_TEXT, dist),
    R("seed", JF_U64_STR, seed),
    RIF("alpha", NULL, JF_SCALAR, scalars, has_layout),
    RIF("beta", NULL, JF_SCALAR, scalars, has_layout),
    RIF("layout", NULL, JF_TEXT, layout, has_layout),
    R("elements", JF_LONG, cmp.elements),
    R("bad", JF_LONG, cmp.bad),
    R("nan_mismatch", JF_LONG, cmp.nan_mismatch),
    R("nan_poison", JF_LONG, cmp.nan_poison),
    R("nan_guard", JF_LONG, cmp.nan_guard),
    R("nan_other", JF_LONG, cmp.nan_other),
    R("unwritten", JF_LONG, cmp.unwritten),
    R("overflowed", JF_LONG, cmp.overflowed),
    R("max_ratio", JF_DOUBLE, cmp.max_ratio),
    R("threshold", JF_DOUBLE, cmp.threshold),
    R("max_ulp", JF_U64, cmp.max_ulp),
    RIF("repeat_ulp", NULL, JF_U64, cmp.repeat_ulp, has_repeat),
    RIF("i", "first_bad", JF_LONG, cmp.first_i, has_first_bad),
    RIF("j", "first_bad", JF_LONG, cmp.first_j, has_first_bad),
    RIF("expected", "first_bad", JF_DOUBLE, cmp.first_expected, has_first_bad),
    RIF("got", "first_bad", JF_FLOAT, cmp.first_got, has_first_bad),
    RIF("buffer", "first_bad", JF_TEXT, cmp.first_buffer, has_buffer),
    RIF("values", "first_bad", JF_TEXT, cmp.first_values, has_values),
    RIF("total_rel_err", NULL, JF_DOUBLE, cmp.total_rel_err, has_total),
    RIF("arg", "oob", JF_LONG, cmp.oob_buffer, has_oob),
    RIF("offset", "oob", JF_LONG, cmp.oob_offset, has_oob),
    RIF("heat", NULL, JF_HEAT, cmp.heat, has_heat),
    RIF("heat_rows", NULL, JF_LONG, cmp.heat_rows, has_shape),
    RIF("heat_cols", NULL, JF_LONG, cmp.heat_cols, has_shape),
    R("output_hash", JF_HASH, output_hash),
    R("kernel_ms", JF_DOUBLE, kernel_ms),
    R("first_launch_ms", JF_DOUBLE, first_launch_ms),
    R("child_ms", JF_DOUBLE, child_ms),
    R("threads", JF_U64, threads),
    R("group_row", JF_INT, group_row),
    R("note", JF_TEXT, note),
};
const size_t jf_result_n = sizeof jf_result / sizeof jf_result[0];

#define H(key, type, field)                                                                                            \
    {                                                                                                                  \
        key, NULL, type, offsetof(struct run_header, field), sizeof(((struct run_header *)0)->field), 0, NULL          \
    }
const struct jf_field jf_header[] = {
    H("harness", JF_TEXT, harness),
    H("reference", JF_TEXT, reference),
    H("tier", JF_TEXT, tier),
    H("cases", JF_TEXT, cases),
    H("manifests", JF_PATHS, manifests),
    H("only_manifest", JF_BOOL, only_manifest),
    H("known_bugs", JF_TEXT, known_bugs),
    H("schedule", JF_TEXT, schedule),
    H("shard", JF_INT, shard),
    H("shards", JF_INT, shards),
    H("guard_bytes", JF_LONG, guard_bytes),
    H("selection", JF_TEXT, selection),
    H("start", JF_TEXT, start),
    H("hostname", JF_TEXT, hostname),
    H("cwd", JF_TEXT, cwd),
    H("exe", JF_TEXT, exe),
    H("command", JF_TEXT, command),
};
const size_t jf_header_n = sizeof jf_header / sizeof jf_header[0];
/* clang-format on */

void jsonl_string(FILE *out, const char *s)
{
    fputc('"', out);
    while (*s) {
        unsigned cp;
        size_t n = txt_next(s, &cp);
        if (cp == '"' || cp == '\\')
            fprintf(out, "\\%c", cp);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp < 0x20)
            fprintf(out, "\\u%04x", cp);
        else if (cp == TXT_REPLACEMENT && n == 1)
            fputs("\\ufffd", out);
        else
            fwrite(s, 1, n, out);
        s += n;
    }
    fputc('"', out);
}

static void put_double(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.9g", v);
    else
        fprintf(out, "\"%s\"", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static void put_value(FILE *out, const struct jf_field *f, const char *p)
{
    char text[256];
    const struct rep_result *r = (const struct rep_result *)(p - f->off); /* for the JF_SIZE... types */
    switch (f->type) {
    case JF_SIZE: fprintf(out, "%ld", jf_size_column(r, f->key)); break;
    case JF_SIZES_TEXT:
        jf_sizes_text(r, text, sizeof text);
        jsonl_string(out, text);
        break;
    case JF_SCALAR: put_double(out, jf_scalar(r, f->key)); break;
    case JF_TEXT: jsonl_string(out, p); break;
    case JF_INT: fprintf(out, "%d", *(const int *)p); break;
    case JF_LONG: fprintf(out, "%ld", *(const long *)p); break;
    case JF_U64: fprintf(out, "%" PRIu64, *(const uint64_t *)p); break;
    case JF_U64_STR: fprintf(out, "\"%" PRIu64 "\"", *(const uint64_t *)p); break;
    case JF_HASH: fprintf(out, "\"%016" PRIx64 "\"", *(const uint64_t *)p); break;
    case JF_DOUBLE: put_double(out, *(const double *)p); break;
    case JF_FLOAT: put_double(out, *(const float *)p); break;
    case JF_BOOL: fputs(*(const int *)p ? "true" : "false", out); break;
    case JF_VERDICT: fprintf(out, "\"%s\"", verdict_name(*(const enum hb_verdict *)p)); break;
    case JF_OP: fprintf(out, "\"%s\"", op_name(*(const enum hb_op *)p)); break;
    case JF_CLASSES:
        class_names(*(const unsigned *)p, text, sizeof text);
        fprintf(out, "\"%s\"", text);
        break;
    case JF_HEAT:
        fputc('"', out);
        for (size_t i = 0; i < f->size; i++)
            fprintf(out, "%02x", ((const unsigned char *)p)[i]);
        fputc('"', out);
        break;
    case JF_PATHS: {
        const struct run_header *h = (const struct run_header *)(p - f->off);
        fputc('[', out);
        for (int i = 0; i < h->n_manifests; i++) {
            fputs(i ? "," : "", out);
            jsonl_string(out, h->manifests[i]);
        }
        fputc(']', out);
        break;
    }
    }
}

/* Writes the fields of one table after the record's opening; nested objects open and close
 * as the table's `object` changes. */
static void put_fields(FILE *out, const struct jf_field *t, size_t n, const void *rec)
{
    const char *open = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct jf_field *f = &t[i];
        if (f->present && !f->present(rec))
            continue;
        int same = open && f->object && !strcmp(open, f->object);
        if (open && !same)
            fputc('}', out), open = NULL;
        if (f->object && !same)
            fprintf(out, ",\"%s\":{", f->object), open = f->object;
        fprintf(out, "%s\"%s\":", same ? "," : open ? "" : ",", f->key);
        put_value(out, f, (const char *)rec + f->off);
    }
    if (open)
        fputc('}', out);
}

void jsonl_write(FILE *out, const struct rep_result *r)
{
    fprintf(out, "{\"schema\":%d,\"record\":\"result\"", JSONL_SCHEMA);
    put_fields(out, jf_result, jf_result_n, r);
    fputs("}\n", out);
}

void jsonl_write_header(FILE *out, const struct run_header *h)
{
    fprintf(out, "{\"schema\":%d,\"record\":\"header\"", JSONL_SCHEMA);
    put_fields(out, jf_header, jf_header_n, h);
    fputs("}\n", out);
}

void jsonl_write_end(FILE *out, int results, int interrupted)
{
    fprintf(out, "{\"schema\":%d,\"record\":\"end\",\"results\":%d,\"interrupted\":%s}\n", JSONL_SCHEMA, results,
            interrupted ? "true" : "false");
}
