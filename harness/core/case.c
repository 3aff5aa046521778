/* SPDX-License-Identifier: MIT */
/* case.c: case catalogue files (documented in cases/README.md): reading them, comments and
 * `include` lines, and the set of cases with its name index. One case line is case_line.c's
 * business. Every error names file:line. */
#include "case.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"

#define MAX_INCLUDE_DEPTH 8
#define MAX_LINE 4096

static const char *const dist_names[DIST_COUNT] = {"exact", "uniform", "cancel", "special", "wideint"};

const char *case_dist_name(enum case_dist d) { return d < DIST_COUNT ? dist_names[d] : "?"; }

int case_size_find(const struct case_size *s, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name))
            return i;
    return -1;
}

long case_size_of(const struct case_size *s, int n, const char *name)
{
    int at = case_size_find(s, n, name);
    return at >= 0 ? s[at].value : 0;
}

int case_size_set(struct case_size *s, int *n, const char *name, long value)
{
    int at = case_size_find(s, *n, name);
    if (at < 0 && *n == CASE_MAX_SIZES)
        return -1;
    if (at < 0)
        snprintf(s[at = (*n)++].name, sizeof s[0].name, "%s", name);
    s[at].value = value;
    return 0;
}

double case_size_product(const struct hb_case *c)
{
    double p = 1;
    for (int i = 0; i < c->n_sizes; i++)
        p *= (double)c->sizes[i].value;
    return p;
}

void case_sizes_text(const struct case_size *s, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%ld", i ? " " : "", s[i].name, s[i].value);
}

const struct case_scalar *case_scalar_find(const struct case_scalar *s, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name))
            return &s[i];
    return NULL;
}

int case_scalar_set(struct case_scalar *s, int *n, const char *name, float value)
{
    struct case_scalar *at = (struct case_scalar *)case_scalar_find(s, *n, name);
    if (!at && *n == CASE_MAX_SCALARS)
        return -1;
    if (!at) {
        at = &s[(*n)++];
        memset(at, 0, sizeof *at);
        snprintf(at->name, sizeof at->name, "%s", name);
    }
    at->value = value;
    return 0;
}

float case_scalar(const struct hb_case *c, const char *name)
{
    const struct case_scalar *s = case_scalar_find(c->scalars, c->n_scalars, name);
    return s ? s->value : 0.0f;
}

/* The name index: open addressing over indices + 1, at most half full, so a line expanding
 * to many cases checks each new name in constant time instead of scanning them all. */
static void index_insert(struct case_set *set, int i)
{
    size_t mask = set->index_cap - 1;
    for (size_t h = hb_fnv1a(set->c[i].name, strlen(set->c[i].name)) & mask;; h = (h + 1) & mask)
        if (!set->index[h]) {
            set->index[h] = i + 1;
            return;
        }
}

static void index_grow(struct case_set *set)
{
    free(set->index);
    set->index_cap = set->index_cap ? set->index_cap * 2 : 256;
    set->index = xcalloc(set->index_cap, sizeof *set->index);
    for (int i = 0; i < set->n; i++)
        index_insert(set, i);
}

int case_set_find(const struct case_set *set, const char *name)
{
    if (!set->index_cap)
        return -1;
    size_t mask = set->index_cap - 1;
    for (size_t h = hb_fnv1a(name, strlen(name)) & mask; set->index[h]; h = (h + 1) & mask)
        if (!strcmp(set->c[set->index[h] - 1].name, name))
            return set->index[h] - 1;
    return -1;
}

void case_set_push(struct case_set *set, const struct hb_case *c)
{
    set->c = xgrow(set->c, set->n, &set->cap, sizeof *set->c);
    set->c[set->n++] = *c;
    if ((size_t)set->n * 2 > set->index_cap)
        index_grow(set);
    else
        index_insert(set, set->n - 1);
}

void case_set_free(struct case_set *set)
{
    free(set->c);
    free(set->index);
    memset(set, 0, sizeof *set);
}

static int parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err, int depth);

/* The largest case catalogue read: the shipped tiers are a few KiB. */
#define CASE_MAX_FILE_BYTES (64 << 20)

static int parse_file_depth(const char *path, struct case_set *set, struct hb_err *err, int depth)
{
    FILE *f = infile_open(path, err);
    if (!f)
        return -1;
    size_t cap = 1 << 16, len = 0;
    char *buf = xcalloc(cap, 1);
    size_t got;
    /* Bounded, and a NUL ends it at once: an include of /dev/zero or of a binary is an error
     * within the first read, not a read until memory runs out. */
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        const char *nul = memchr(buf + len, 0, got);
        len += got;
        if (nul) {
            int line = 1;
            for (const char *p = buf; p < nul; p++)
                line += *p == '\n';
            fclose(f);
            free(buf);
            err_set(err, "%s:%d: holds a NUL byte: not a text case catalogue", path, line);
            return -1;
        }
        if (len + 1 == cap) {
            char *grown = cap < CASE_MAX_FILE_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                fclose(f);
                free(buf);
                err_set(err, "%s: larger than %d MiB: not a case catalogue", path, CASE_MAX_FILE_BYTES >> 20);
                return -1;
            }
            buf = grown, cap *= 2;
        }
    }
    int read_failed = ferror(f);
    fclose(f);
    if (read_failed) {
        free(buf);
        err_set(err, "%s: read error", path);
        return -1;
    }
    buf[len] = 0;
    int rc = parse_text(path, buf, set, err, depth);
    free(buf);
    return rc;
}

static int parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err, int depth)
{
    int line = 0;
    for (const char *p = text; *p;) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n >= MAX_LINE) {
            err_set(err, "%s:%d: line longer than %d characters", path, line, MAX_LINE - 1);
            return -1;
        }
        char buf[MAX_LINE];
        memcpy(buf, p, n);
        buf[n] = 0;
        p = eol ? eol + 1 : p + n;
        /* '#' starts a comment unless it sits inside a quoted value. */
        int quoted = 0;
        for (char *c = buf; *c; c++) {
            if (*c == '"')
                quoted = !quoted;
            else if (*c == '#' && !quoted) {
                *c = 0;
                break;
            }
        }
        char *s = str_trim(buf);
        if (!*s)
            continue;
        if (!strncmp(s, "include", 7) && (isspace((unsigned char)s[7]) || !s[7])) {
            char *target = str_trim(s + 7);
            if (!*target) {
                err_set(err, "%s:%d: include needs a file name", path, line);
                return -1;
            }
            if (depth == MAX_INCLUDE_DEPTH) {
                err_set(err, "%s:%d: include %s: includes nest deeper than %d (an include loop?)", path, line, target,
                        MAX_INCLUDE_DEPTH);
                return -1;
            }
            char *dir = path_dirname(path);
            char *inc = path_join(dir, target);
            free(dir);
            int rc = parse_file_depth(inc, set, err, depth + 1);
            /* A file-level problem starts "inc: "; a long path leaves the message cut inside the
             * path or inside the ": " after it, and still a file-level one. */
            size_t inc_len = strlen(inc), msg_len = strlen(err->msg);
            size_t same = msg_len < inc_len ? msg_len : inc_len, after = msg_len - same;
            if (rc && !strncmp(err->msg, inc, same) && !strncmp(err->msg + same, ": ", after < 2 ? after : 2)) {
                /* A file-level problem (missing, unreadable, a folder): name the include line. */
                char inner[sizeof err->msg];
                memcpy(inner, err->msg, sizeof inner);
                err_set(err, "%s:%d: include %.900s", path, line, inner);
            }
            free(inc);
            if (rc)
                return -1;
            continue;
        }
        if (case_parse_line(s, path, line, set, err))
            return -1;
    }
    return 0;
}

int case_parse_file(const char *path, struct case_set *set, struct hb_err *err)
{
    return parse_file_depth(path, set, err, 0);
}

int case_parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err)
{
    return parse_text(path, text, set, err, 0);
}
