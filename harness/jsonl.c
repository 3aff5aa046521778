/* jsonl.c: the reader for report.c's JSON lines. A small recursive-descent parser over one
 * line: an object of strings, numbers and (for first_bad and oob) one nested object, where
 * non-finite figures are the strings "nan", "inf", "-inf" and the heat map a hex string.
 * Unknown keys are skipped so readers keep working when writers add fields. */
#include "jsonl.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Longest decoded string: the heat map (two hex digits a cell) with room to spare. */
#define JSONL_STR_MAX (4 * CMP_HEAT * CMP_HEAT)

struct jsonl_val {
    int is_str;
    size_t len;
    char text[JSONL_STR_MAX]; /* decoded string, or the raw number/literal token */
};

struct jsonl_cur {
    const char *p;
    struct hb_err *err;
    struct jsonl_val v;
};

/* Keys a line must carry to mean a result at all. */
enum { REQ_BACKEND = 1, REQ_LANG = 2, REQ_KERNEL = 4, REQ_CASE = 8, REQ_VERDICT = 16, REQ_OP = 32, REQ_WIDTH = 64 };
#define REQ_ALL 127

static void ws(struct jsonl_cur *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')
        c->p++;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static int put(struct jsonl_cur *c, char ch)
{
    if (c->v.len + 1 >= sizeof c->v.text) {
        err_set(c->err, "string longer than %d bytes", JSONL_STR_MAX - 1);
        return -1;
    }
    c->v.text[c->v.len++] = ch;
    return 0;
}

/* Appends code point u as UTF-8 (the writer only emits \u00XX, but any is accepted). */
static int put_utf8(struct jsonl_cur *c, unsigned u)
{
    if (u < 0x80)
        return put(c, (char)u);
    if (u < 0x800)
        return put(c, (char)(0xc0 | u >> 6)) || put(c, (char)(0x80 | (u & 0x3f)));
    return put(c, (char)(0xe0 | u >> 12)) || put(c, (char)(0x80 | ((u >> 6) & 0x3f))) ||
           put(c, (char)(0x80 | (u & 0x3f)));
}

static int parse_string(struct jsonl_cur *c)
{
    c->v.len = 0;
    c->v.is_str = 1;
    if (*c->p != '"') {
        err_set(c->err, "expected a string");
        return -1;
    }
    c->p++;
    for (;;) {
        char ch = *c->p++;
        if (!ch) {
            err_set(c->err, "unterminated string");
            return -1;
        }
        if (ch == '"')
            break;
        if ((unsigned char)ch < 0x20) {
            err_set(c->err, "raw control character 0x%02x in a string", (unsigned char)ch);
            return -1;
        }
        if (ch != '\\') {
            if (put(c, ch))
                return -1;
            continue;
        }
        char e = *c->p++;
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e && plain) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            if (put(c, decoded[plain - "\"\\/bfnrt"]))
                return -1;
        } else if (e == 'u') {
            unsigned u = 0;
            for (int k = 0; k < 4; k++) {
                int h = hexval(c->p[k]);
                if (h < 0) {
                    err_set(c->err, "bad \\u escape");
                    return -1;
                }
                u = u * 16 + (unsigned)h;
            }
            c->p += 4;
            if (!u) {
                err_set(c->err, "\\u0000 in a string");
                return -1;
            }
            if (put_utf8(c, u))
                return -1;
        } else {
            err_set(c->err, "bad escape \\%c", e ? e : '0');
            return -1;
        }
    }
    c->v.text[c->v.len] = 0;
    return 0;
}

/* A number or literal: the raw token up to the next delimiter, converted by the key's type. */
static int parse_scalar(struct jsonl_cur *c)
{
    if (*c->p == '"')
        return parse_string(c);
    c->v.is_str = 0;
    c->v.len = 0;
    while (*c->p && !strchr(",}] \t\r\n", *c->p))
        if (put(c, *c->p++))
            return -1;
    c->v.text[c->v.len] = 0;
    if (!c->v.len) {
        if (*c->p)
            err_set(c->err, "expected a value before '%c'", *c->p);
        else
            err_set(c->err, "expected a value at end of line");
        return -1;
    }
    return 0;
}

static int want_number(struct jsonl_cur *c, const char *key)
{
    if (c->v.is_str) {
        err_set(c->err, "\"%s\": expected a number, got a string", key);
        return -1;
    }
    return 0;
}

static int to_long(struct jsonl_cur *c, const char *key, long *out)
{
    if (want_number(c, key))
        return -1;
    if (parse_long(c->v.text, out)) {
        err_set(c->err, "\"%s\": '%s' is not an integer", key, c->v.text);
        return -1;
    }
    return 0;
}

static int to_int(struct jsonl_cur *c, const char *key, int *out)
{
    long v;
    if (to_long(c, key, &v))
        return -1;
    if (v < -2147483647L - 1 || v > 2147483647L) {
        err_set(c->err, "\"%s\": %ld is out of range", key, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int to_u64(struct jsonl_cur *c, const char *key, uint64_t *out)
{
    if (want_number(c, key))
        return -1;
    if (parse_u64(c->v.text, out)) {
        err_set(c->err, "\"%s\": '%s' is not an unsigned integer", key, c->v.text);
        return -1;
    }
    return 0;
}

/* Figures: a number, or one of the writer's strings for the values JSON cannot hold. */
static int to_double(struct jsonl_cur *c, const char *key, double *out)
{
    const char *t = c->v.text;
    if (c->v.is_str) {
        if (!strcmp(t, "nan"))
            *out = NAN;
        else if (!strcmp(t, "inf"))
            *out = INFINITY;
        else if (!strcmp(t, "-inf"))
            *out = -INFINITY;
        else {
            err_set(c->err, "\"%s\": expected a number, \"nan\", \"inf\" or \"-inf\", got \"%s\"", key, t);
            return -1;
        }
        return 0;
    }
    char *end;
    errno = 0;
    *out = strtod(t, &end);
    /* strtod also takes "nan" and hex floats: the writer emits neither bare. */
    if (*end || end == t || !strpbrk(t, "0123456789") || strpbrk(t, "xXnN") || errno == ERANGE) {
        err_set(c->err, "\"%s\": '%s' is not a number", key, t);
        return -1;
    }
    return 0;
}

static int to_text(struct jsonl_cur *c, const char *key, char *dst, size_t cap)
{
    if (!c->v.is_str) {
        err_set(c->err, "\"%s\": expected a string, got %s", key, c->v.text);
        return -1;
    }
    if (c->v.len >= cap) {
        err_set(c->err, "\"%s\": longer than %zu bytes", key, cap - 1);
        return -1;
    }
    memcpy(dst, c->v.text, c->v.len + 1);
    return 0;
}

static int hex_bytes(struct jsonl_cur *c, const char *key, unsigned char *dst, size_t n)
{
    if (!c->v.is_str || c->v.len != 2 * n) {
        err_set(c->err, "\"%s\": expected a string of %zu hex digits", key, 2 * n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(c->v.text[2 * i]), lo = hexval(c->v.text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            err_set(c->err, "\"%s\": '%c%c' is not hex", key, c->v.text[2 * i], c->v.text[2 * i + 1]);
            return -1;
        }
        dst[i] = (unsigned char)(hi * 16 + lo);
    }
    return 0;
}

static const struct {
    const char *key;
    size_t off, size;
    int req;
} text_fields[] = {
#define TEXT(k, f, req) {k, offsetof(struct rep_result, f), sizeof((struct rep_result *)0)->f, req}
    TEXT("backend", backend, REQ_BACKEND), TEXT("device", device, 0), TEXT("driver", driver, 0),
    TEXT("lang", lang, REQ_LANG),          TEXT("kernel", kernel, REQ_KERNEL), TEXT("case", case_name, REQ_CASE),
    TEXT("note", note, 0),                 TEXT("why", why, 0),        TEXT("dist", dist, 0),
#undef TEXT
};

static int assign_top(struct jsonl_cur *c, const char *key, struct rep_result *r, int *seen)
{
    for (size_t i = 0; i < sizeof text_fields / sizeof text_fields[0]; i++)
        if (!strcmp(key, text_fields[i].key)) {
            *seen |= text_fields[i].req;
            return to_text(c, key, (char *)r + text_fields[i].off, text_fields[i].size);
        }
    struct cmp_result *m = &r->cmp;
    if (!strcmp(key, "width"))
        return *seen |= REQ_WIDTH, to_int(c, key, &r->width);
    if (!strcmp(key, "group_row"))
        return to_int(c, key, &r->group_row);
    if (!strcmp(key, "op")) {
        *seen |= REQ_OP;
        if (!c->v.is_str || op_parse(c->v.text, &r->op)) {
            err_set(c->err, "\"op\": unknown op %s", c->v.text);
            return -1;
        }
        return 0;
    }
    if (!strcmp(key, "verdict")) {
        *seen |= REQ_VERDICT;
        for (int v = 0; v < V_COUNT && c->v.is_str; v++)
            if (!strcmp(c->v.text, verdict_name((enum hb_verdict)v))) {
                r->verdict = (enum hb_verdict)v;
                return 0;
            }
        err_set(c->err, "\"verdict\": unknown verdict %s", c->v.text);
        return -1;
    }
    if (!strcmp(key, "classes")) {
        if (!c->v.is_str) {
            err_set(c->err, "\"classes\": expected a string, got %s", c->v.text);
            return -1;
        }
        m->classes = 0;
        for (char *save = NULL, *tok = strtok_r(c->v.text, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
            unsigned bit;
            if (class_parse(tok, &bit)) {
                err_set(c->err, "\"classes\": unknown class %s", tok);
                return -1;
            }
            m->classes |= bit;
        }
        return 0;
    }
    if (!strcmp(key, "M"))
        return to_long(c, key, &r->M);
    if (!strcmp(key, "N"))
        return to_long(c, key, &r->N);
    if (!strcmp(key, "K"))
        return to_long(c, key, &r->K);
    if (!strcmp(key, "n"))
        return to_long(c, key, &r->n);
    if (!strcmp(key, "seed"))
        return to_u64(c, key, &r->seed);
    if (!strcmp(key, "elements"))
        return to_long(c, key, &m->elements);
    if (!strcmp(key, "bad"))
        return to_long(c, key, &m->bad);
    if (!strcmp(key, "nan_mismatch"))
        return to_long(c, key, &m->nan_mismatch);
    if (!strcmp(key, "unwritten"))
        return to_long(c, key, &m->unwritten);
    if (!strcmp(key, "max_ratio"))
        return to_double(c, key, &m->max_ratio);
    if (!strcmp(key, "threshold"))
        return to_double(c, key, &m->threshold);
    if (!strcmp(key, "max_ulp"))
        return to_u64(c, key, &m->max_ulp);
    if (!strcmp(key, "total_rel_err"))
        return to_double(c, key, &m->total_rel_err);
    if (!strcmp(key, "heat"))
        return hex_bytes(c, key, m->heat, sizeof m->heat);
    if (!strcmp(key, "output_hash")) {
        unsigned char b[8];
        if (hex_bytes(c, key, b, sizeof b))
            return -1;
        r->output_hash = 0;
        for (int i = 0; i < 8; i++)
            r->output_hash = r->output_hash << 8 | b[i];
        return 0;
    }
    if (!strcmp(key, "kernel_ms"))
        return to_double(c, key, &r->kernel_ms);
    if (!strcmp(key, "child_ms"))
        return to_double(c, key, &r->child_ms);
    if (!strcmp(key, "threads"))
        return to_u64(c, key, &r->threads);
    return 0; /* a key this reader does not know: skipped */
}

static int assign_first_bad(struct jsonl_cur *c, const char *key, struct rep_result *r)
{
    struct cmp_result *m = &r->cmp;
    if (!strcmp(key, "i"))
        return to_long(c, key, &m->first_i);
    if (!strcmp(key, "j"))
        return to_long(c, key, &m->first_j);
    if (!strcmp(key, "expected"))
        return to_double(c, key, &m->first_expected);
    if (!strcmp(key, "got")) {
        double got;
        if (to_double(c, key, &got))
            return -1;
        m->first_got = (float)got; /* written from a float with 9 digits: exact */
        return 0;
    }
    return 0;
}

static int assign_oob(struct jsonl_cur *c, const char *key, struct rep_result *r)
{
    if (!strcmp(key, "arg"))
        return to_long(c, key, &r->cmp.oob_buffer);
    if (!strcmp(key, "offset"))
        return to_long(c, key, &r->cmp.oob_offset);
    return 0;
}

enum obj_kind { OBJ_TOP, OBJ_FIRST_BAD, OBJ_OOB, OBJ_SKIP };

static int parse_object(struct jsonl_cur *c, enum obj_kind kind, struct rep_result *r, int *seen, int depth)
{
    if (depth > 4) {
        err_set(c->err, "objects nested too deep");
        return -1;
    }
    ws(c);
    if (*c->p != '{') {
        if (*c->p)
            err_set(c->err, "expected '{', got '%c'", *c->p);
        else
            err_set(c->err, "expected '{', the line is empty or ends early");
        return -1;
    }
    c->p++;
    ws(c);
    if (*c->p == '}') {
        c->p++;
        return 0;
    }
    for (;;) {
        char key[64];
        ws(c);
        if (parse_string(c)) {
            if (!strncmp(c->err->msg, "expected a string", 17))
                err_set(c->err, "expected a key string");
            return -1;
        }
        if (c->v.len >= sizeof key) {
            err_set(c->err, "key '%.20s...' too long", c->v.text);
            return -1;
        }
        memcpy(key, c->v.text, c->v.len + 1);
        ws(c);
        if (*c->p != ':') {
            err_set(c->err, "\"%s\": expected ':'", key);
            return -1;
        }
        c->p++;
        ws(c);
        if (*c->p == '{') {
            enum obj_kind sub = kind != OBJ_TOP ? OBJ_SKIP
                              : !strcmp(key, "first_bad") ? OBJ_FIRST_BAD
                              : !strcmp(key, "oob") ? OBJ_OOB : OBJ_SKIP;
            if (parse_object(c, sub, r, seen, depth + 1))
                return -1;
        } else if (*c->p == '[') {
            err_set(c->err, "\"%s\": arrays are not part of this format", key);
            return -1;
        } else {
            if (parse_scalar(c))
                return -1;
            int rc = kind == OBJ_TOP ? assign_top(c, key, r, seen)
                   : kind == OBJ_FIRST_BAD ? assign_first_bad(c, key, r)
                   : kind == OBJ_OOB ? assign_oob(c, key, r) : 0;
            if (rc)
                return -1;
        }
        ws(c);
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        if (*c->p == '}') {
            c->p++;
            return 0;
        }
        if (*c->p)
            err_set(c->err, "after \"%s\": expected ',' or '}', got '%c'", key, *c->p);
        else
            err_set(c->err, "after \"%s\": the line ends inside the object", key);
        return -1;
    }
}

int jsonl_parse_line(const char *line, struct rep_result *r, struct hb_err *err)
{
    struct jsonl_cur *c = xcalloc(1, sizeof *c);
    c->p = line;
    c->err = err;
    memset(r, 0, sizeof *r);
    cmp_init(&r->cmp);
    int seen = 0, rc = parse_object(c, OBJ_TOP, r, &seen, 0);
    if (!rc) {
        ws(c);
        if (*c->p) {
            err_set(err, "text after the object: '%.20s'", c->p);
            rc = -1;
        }
    }
    if (!rc && seen != REQ_ALL) {
        static const char *const names[] = {"backend", "lang", "kernel", "case", "verdict", "op", "width"};
        for (int i = 0; i < 7; i++)
            if (!(seen & 1 << i)) {
                err_set(err, "missing \"%s\": not a harness result", names[i]);
                break;
            }
        rc = -1;
    }
    free(c);
    return rc;
}

int jsonl_read(const char *path, struct rep_result **out, int *n, struct hb_err *err)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        err_set(err, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    struct rep_result *all = NULL;
    int count = 0, cap = 0, rc = 0;
    char *line = NULL;
    size_t line_cap = 0;
    long lineno = 0;
    while (getline(&line, &line_cap, f) >= 0) {
        lineno++;
        if (!*str_trim(line))
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 256;
            struct rep_result *grown = realloc(all, (size_t)cap * sizeof *grown);
            if (!grown) {
                err_set(err, "%s:%ld: out of memory", path, lineno);
                rc = -1;
                break;
            }
            all = grown;
        }
        struct hb_err why = {{0}};
        if (jsonl_parse_line(line, &all[count], &why)) {
            err_set(err, "%s:%ld: %s", path, lineno, why.msg);
            rc = -1;
            break;
        }
        count++;
    }
    if (!rc && ferror(f)) {
        err_set(err, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc) {
        free(all);
        return -1;
    }
    *out = all;
    *n = count;
    return 0;
}
