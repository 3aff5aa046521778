/* SPDX-License-Identifier: MIT */
/* jsonl.c: the JSON lines reader. json-c parses each line strictly (UTF-8 checked); this file
 * only walks the field table (jsonl_table.h) over the parsed object and checks each value's
 * type and range. Keys it does not know are skipped, so readers keep working when writers
 * add fields; a file from a newer schema is refused rather than half read. */
#include "jsonl.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "jsonl_table.h"
#include "text.h"

/* json-c clamps integers it cannot hold to these: a field never legitimately holds them. */
static int clamped(struct json_object *v)
{
    int64_t i = json_object_get_int64(v);
    return i == INT64_MAX || i == INT64_MIN || json_object_get_uint64(v) == UINT64_MAX;
}

static int get_int(struct json_object *v, const char *key, int64_t lo, int64_t hi, int64_t *out, struct hb_err *err)
{
    if (!json_object_is_type(v, json_type_int) || clamped(v)) {
        err_set(err, "\"%s\": expected an integer", key);
        return -1;
    }
    *out = json_object_get_int64(v);
    if (*out < lo || *out > hi) {
        err_set(err, "\"%s\": %lld is out of range", key, (long long)*out);
        return -1;
    }
    return 0;
}

static int get_u64(struct json_object *v, const char *key, uint64_t *out, struct hb_err *err)
{
    if (json_object_is_type(v, json_type_int) && !clamped(v) && json_object_get_int64(v) >= 0) {
        *out = json_object_get_uint64(v);
        return 0;
    }
    err_set(err, "\"%s\": expected an unsigned integer", key);
    return -1;
}

static int get_double(struct json_object *v, const char *key, double *out, struct hb_err *err)
{
    if (json_object_is_type(v, json_type_string)) {
        const char *t = json_object_get_string(v);
        *out = !strcmp(t, "nan") ? NAN : !strcmp(t, "inf") ? INFINITY : !strcmp(t, "-inf") ? -INFINITY : 0;
        if (*out == 0) {
            err_set(err, "\"%s\": expected a number, \"nan\", \"inf\" or \"-inf\"", key);
            return -1;
        }
        return 0;
    }
    if (json_object_is_type(v, json_type_int) && !clamped(v)) {
        *out = (double)json_object_get_int64(v);
        return 0;
    }
    /* json-c reads bare NaN and 1e400 as doubles: JSON has neither. */
    if (json_object_is_type(v, json_type_double) && isfinite(json_object_get_double(v))) {
        *out = json_object_get_double(v);
        return 0;
    }
    err_set(err, "\"%s\": expected a finite number", key);
    return -1;
}

static int hexval(char ch) { return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1; }

static int get_hex(const char *t, size_t len, const char *key, unsigned char *dst, size_t n, struct hb_err *err)
{
    if (len != 2 * n) {
        err_set(err, "\"%s\": expected a string of %zu hex digits", key, 2 * n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(t[2 * i]), lo = hexval(t[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            err_set(err, "\"%s\": not lowercase hex", key);
            return -1;
        }
        dst[i] = (unsigned char)(hi * 16 + lo);
    }
    return 0;
}

static int get_classes(char *t, const char *key, unsigned *out, struct hb_err *err)
{
    *out = 0;
    for (char *save = NULL, *tok = strtok_r(t, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        unsigned bit;
        if (class_parse(tok, &bit)) {
            err_set(err, "\"%s\": unknown class %.40s", key, tok);
            return -1;
        }
        *out |= bit;
    }
    return 0;
}

static int get_paths(struct json_object *v, const struct jf_field *f, char *p, struct hb_err *err)
{
    struct run_header *h = (struct run_header *)(p - f->off);
    size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : SIZE_MAX;
    if (n > REP_MAX_MANIFESTS) {
        err_set(err, "\"%s\": expected an array of at most %d strings", f->key, REP_MAX_MANIFESTS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        const char *t = json_object_get_string(e);
        if (!json_object_is_type(e, json_type_string) || strlen(t) != (size_t)json_object_get_string_len(e) ||
            strlen(t) >= REP_PATH) {
            err_set(err, "\"%s\": item %zu is not a path", f->key, i);
            return -1;
        }
        memcpy(h->manifests[i], t, strlen(t) + 1);
    }
    h->n_manifests = (int)n;
    return 0;
}

/* A string value of the record's own kinds: the whole of it, no NUL inside, valid UTF-8. */
static int get_text(struct json_object *v, const char *key, char *buf, size_t cap, struct hb_err *err)
{
    if (!json_object_is_type(v, json_type_string)) {
        err_set(err, "\"%s\": expected a string", key);
        return -1;
    }
    const char *t = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    if (strlen(t) != len) {
        err_set(err, "\"%s\": NUL character in a string", key);
        return -1;
    }
    if (len >= cap) {
        err_set(err, "\"%s\": longer than %zu bytes", key, cap - 1);
        return -1;
    }
    memcpy(buf, t, len + 1);
    return 0;
}

static int get_named(struct json_object *v, const struct jf_field *f, char *p, struct hb_err *err)
{
    char t[CMP_HEAT * CMP_HEAT * 2 + 1];
    if (get_text(v, f->key, t, sizeof t, err))
        return -1;
    switch (f->type) {
    case JF_VERDICT:
        for (int k = 0; k < V_COUNT; k++)
            if (!strcmp(t, verdict_name((enum hb_verdict)k)))
                return *(enum hb_verdict *)p = (enum hb_verdict)k, 0;
        err_set(err, "\"%s\": unknown verdict %.40s", f->key, t);
        return -1;
    case JF_OP:
        if (!op_parse(t, (enum hb_op *)p))
            return 0;
        err_set(err, "\"%s\": unknown op %.40s", f->key, t);
        return -1;
    case JF_CLASSES: return get_classes(t, f->key, (unsigned *)p, err);
    case JF_HEAT: return get_hex(t, strlen(t), f->key, (unsigned char *)p, f->size, err);
    case JF_HASH: {
        unsigned char b[8];
        if (get_hex(t, strlen(t), f->key, b, sizeof b, err))
            return -1;
        uint64_t h = 0;
        for (int i = 0; i < 8; i++)
            h = h << 8 | b[i];
        return *(uint64_t *)p = h, 0;
    }
    default: /* JF_U64_STR */
        if (!parse_u64(t, (uint64_t *)p) && t[0] >= '0' && t[0] <= '9')
            return 0;
        err_set(err, "\"%s\": expected an unsigned integer in a string", f->key);
        return -1;
    }
}

static int get_value(struct json_object *v, const struct jf_field *f, char *p, struct hb_err *err)
{
    struct rep_result *r = (struct rep_result *)(p - f->off); /* for the JF_SIZE... types */
    int64_t i;
    double d;
    char t[256];
    switch (f->type) {
    case JF_TEXT: return get_text(v, f->key, p, f->size, err);
    case JF_INT: return get_int(v, f->key, INT32_MIN, INT32_MAX, &i, err) ? -1 : (*(int *)p = (int)i, 0);
    case JF_LONG: return get_int(v, f->key, LONG_MIN, LONG_MAX, &i, err) ? -1 : (*(long *)p = (long)i, 0);
    case JF_U64: return get_u64(v, f->key, (uint64_t *)p, err);
    case JF_DOUBLE: return get_double(v, f->key, (double *)p, err);
    case JF_FLOAT: return get_double(v, f->key, &d, err) ? -1 : (*(float *)p = (float)d, 0);
    case JF_BOOL:
        if (!json_object_is_type(v, json_type_boolean))
            return err_set(err, "\"%s\": expected true or false", f->key), -1;
        return *(int *)p = json_object_get_boolean(v), 0;
    case JF_PATHS: return get_paths(v, f, p, err);
    case JF_SIZE: return get_int(v, f->key, LONG_MIN, LONG_MAX, &i, err) ? -1 : jf_set_size(r, f->key, (long)i, err);
    case JF_SIZES_TEXT: return get_text(v, f->key, t, sizeof t, err) ? -1 : jf_set_sizes_text(r, f->key, t, err);
    case JF_SCALAR: return get_double(v, f->key, &d, err) ? -1 : jf_set_scalar(r, f->key, d, err);
    case JF_U64_STR:
        /* Schema 1 wrote seeds as bare numbers. */
        if (json_object_is_type(v, json_type_int))
            return get_u64(v, f->key, (uint64_t *)p, err);
        return get_named(v, f, p, err);
    default: return get_named(v, f, p, err);
    }
}

static const struct jf_field *find(const struct jf_field *t, size_t n, const char *object, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].key, key) && (object ? t[i].object && !strcmp(t[i].object, object) : !t[i].object))
            return &t[i];
    return NULL;
}

/* Fills rec from the keys of obj that the table knows (inside `object`, or at the top);
 * *required counts the required fields met. */
static int walk(struct json_object *obj, const char *object, const struct jf_field *t, size_t n, void *rec,
                int *required, struct hb_err *err)
{
    struct json_object_iterator it = json_object_iter_begin(obj), end = json_object_iter_end(obj);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *key = json_object_iter_peek_name(&it);
        struct json_object *v = json_object_iter_peek_value(&it);
        const struct jf_field *f = find(t, n, object, key);
        if (f) {
            if (get_value(v, f, (char *)rec + f->off, err))
                return -1;
            *required += f->required;
            continue;
        }
        int nested = 0;
        for (size_t i = 0; !object && i < n; i++)
            nested |= t[i].object && !strcmp(t[i].object, key);
        if (!nested)
            continue; /* a key this reader does not know */
        if (!json_object_is_type(v, json_type_object)) {
            err_set(err, "\"%s\": expected an object", key);
            return -1;
        }
        if (walk(v, key, t, n, rec, required, err))
            return -1;
    }
    return 0;
}

static int parse_result(struct json_object *o, struct rep_result *r, struct hb_err *err)
{
    memset(r, 0, sizeof *r);
    cmp_init(&r->cmp);
    int met = 0, wanted = 0;
    /* The op first: where the record's sizes are depends on it (jf_set_size), whatever the
     * order of the keys. */
    const struct jf_field *op = find(jf_result, jf_result_n, NULL, "op");
    struct json_object *v;
    if (json_object_object_get_ex(o, op->key, &v) && get_value(v, op, (char *)r + op->off, err))
        return -1;
    if (walk(o, NULL, jf_result, jf_result_n, r, &met, err))
        return -1;
    for (size_t i = 0; i < jf_result_n; i++)
        wanted += jf_result[i].required;
    if (met == wanted)
        return 0;
    for (size_t i = 0; i < jf_result_n; i++)
        if (jf_result[i].required && !json_object_object_get_ex(o, jf_result[i].key, NULL)) {
            err_set(err, "missing \"%s\": not a harness result", jf_result[i].key);
            break;
        }
    return -1;
}

static int parse_end(struct json_object *o, struct jsonl_run *run, struct hb_err *err)
{
    struct json_object *v;
    int64_t n;
    if (!json_object_object_get_ex(o, "results", &v) || get_int(v, "results", 0, INT32_MAX, &n, err)) {
        err_set(err, "end record without a count of \"results\"");
        return -1;
    }
    run->has_end = 1;
    run->end_results = (long)n;
    run->interrupted = json_object_object_get_ex(o, "interrupted", &v) && json_object_get_boolean(v);
    return 0;
}

enum rec_kind { REC_RESULT, REC_HEADER, REC_END };

/* The record's schema and kind; -1 for anything else. */
static int record_kind(struct json_object *o, int *schema, enum rec_kind *kind, struct hb_err *err)
{
    struct json_object *v;
    int64_t s = 1;
    if (json_object_object_get_ex(o, "schema", &v) && get_int(v, "schema", 1, INT32_MAX, &s, err))
        return -1;
    if (s > JSONL_SCHEMA) {
        err_set(err, "schema %lld: written by a newer harness (this one reads up to %d)", (long long)s, JSONL_SCHEMA);
        return -1;
    }
    *schema = (int)s;
    *kind = REC_RESULT;
    if (!json_object_object_get_ex(o, "record", &v))
        return s == 1 ? 0 : (err_set(err, "schema %lld record without \"record\"", (long long)s), -1);
    const char *t = json_object_get_string(v);
    if (json_object_is_type(v, json_type_string) && !strcmp(t, "result"))
        return 0;
    if (json_object_is_type(v, json_type_string) && !strcmp(t, "header"))
        return *kind = REC_HEADER, 0;
    if (json_object_is_type(v, json_type_string) && !strcmp(t, "end"))
        return *kind = REC_END, 0;
    err_set(err, "\"record\": expected \"header\", \"result\" or \"end\"");
    return -1;
}

/* json-c's strict parse of one whole line into an object. */
static struct json_object *parse_object(const char *line, size_t len, struct hb_err *err)
{
    struct json_tokener *tok = json_tokener_new_ex(8);
    if (!tok) {
        err_set(err, "out of memory");
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(tok, line, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (!o || e != json_tokener_success) {
        if (e == json_tokener_continue)
            err_set(err, "the line ends inside a record (cut short?)");
        else
            err_set(err, "not JSON: %s at byte %zu", json_tokener_error_desc(e), json_tokener_get_parse_end(tok) + 1);
        json_object_put(o);
        o = NULL;
    } else if (!json_object_is_type(o, json_type_object)) {
        err_set(err, "expected an object");
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* One line into run (a result is appended to run->results, which has room for it). */
static int parse_line(const char *line, size_t len, struct jsonl_run *run, struct hb_err *err)
{
    struct json_object *o = parse_object(line, len, err);
    if (!o)
        return -1;
    int schema, rc;
    enum rec_kind kind;
    if (run->has_end)
        err_set(err, "a record after the end record"), rc = -1;
    else if ((rc = record_kind(o, &schema, &kind, err)) == 0) {
        if (schema > run->schema)
            run->schema = schema;
        if (kind == REC_RESULT)
            rc = parse_result(o, &run->results[run->n], err), run->n += !rc;
        else if (kind == REC_END)
            rc = parse_end(o, run, err);
        else if (run->has_header || run->n)
            err_set(err, "a second run header, or one after results"), rc = -1;
        else
            rc = walk(o, NULL, jf_header, jf_header_n, &run->header, &(int){0}, err), run->has_header = !rc;
    }
    json_object_put(o);
    return rc;
}

int jsonl_parse_line(const char *line, struct rep_result *r, struct hb_err *err)
{
    struct jsonl_run *run = xcalloc(1, sizeof *run);
    run->results = r;
    int rc = parse_line(line, strlen(line), run, err);
    if (!rc && run->n != 1)
        err_set(err, "not a result record"), rc = -1;
    free(run);
    return rc;
}

/* Reads one line of at most JSONL_LINE_MAX bytes into *buf (grown as needed); returns its
 * length without the newline, -1 at the end of the file, -2 when it is too long. */
static long read_line(FILE *f, char **buf, size_t *cap)
{
    size_t len = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (len + 2 > *cap) {
            if (*cap >= (size_t)JSONL_LINE_MAX)
                return -2;
            *cap = *cap ? *cap * 2 : 4096;
            *buf = realloc(*buf, *cap);
            if (!*buf)
                return -2;
        }
        (*buf)[len++] = (char)ch;
    }
    if (ch == EOF && !len)
        return -1;
    if (*buf)
        (*buf)[len] = 0;
    return (long)len;
}

static int blank(const char *s, long len)
{
    for (long i = 0; i < len; i++)
        if (!strchr(" \t\r", s[i]))
            return 0;
    return 1;
}

static int read_lines(FILE *f, const char *path, struct jsonl_run *run, struct hb_err *err)
{
    char *line = NULL;
    size_t line_cap = 0;
    int cap = 0, rc = 0;
    long len;
    for (long lineno = 1; !rc && (len = read_line(f, &line, &line_cap)) != -1; lineno++) {
        struct hb_err why = {{0}};
        if (run->n == cap) {
            cap = cap ? cap * 2 : 64;
            run->results = realloc(run->results, (size_t)cap * sizeof *run->results);
            if (!run->results)
                err_set(&why, "out of memory"), rc = -1;
        }
        if (rc)
            ;
        else if (len == -2)
            err_set(&why, "line longer than %ld bytes: not this format", JSONL_LINE_MAX), rc = -1;
        else if (len && memchr(line, 0, (size_t)len))
            err_set(&why, "NUL byte in the line: not this format (a damaged file?)"), rc = -1;
        else if (!blank(line, len))
            rc = parse_line(line, (size_t)len, run, &why);
        if (rc)
            err_set(err, "%s:%ld: %s", path, lineno, why.msg);
    }
    free(line);
    return rc;
}

int jsonl_read_run(const char *path, struct jsonl_run *run, struct hb_err *err)
{
    memset(run, 0, sizeof *run);
    run->schema = 1;
    FILE *f = infile_open(path, err);
    if (!f)
        return -1;
    int rc = read_lines(f, path, run, err);
    if (!rc && ferror(f)) {
        err_set(err, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    if (rc)
        jsonl_run_free(run);
    return rc;
}

void jsonl_run_free(struct jsonl_run *run)
{
    free(run->results);
    run->results = NULL;
    run->n = 0;
}

const char *jsonl_run_incomplete(const struct jsonl_run *run)
{
    return !run->has_header && !run->n  ? "empty: no header and no results"
           : !run->has_header           ? "no run header: not a --json file of this harness"
           : !run->has_end              ? "no end record: the file was cut short (or its run killed)"
           : run->end_results != run->n ? "its end record's count does not match its results"
                                        : NULL;
}

int jsonl_read(const char *path, struct rep_result **out, int *n, struct hb_err *err)
{
    struct jsonl_run *run = xcalloc(1, sizeof *run);
    int rc = jsonl_read_run(path, run, err);
    *out = rc ? NULL : run->results;
    *n = rc ? 0 : run->n;
    free(run);
    return rc;
}
