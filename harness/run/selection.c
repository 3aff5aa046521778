/* SPDX-License-Identifier: MIT */
/* selection.c: see selection.h. */
#include "selection.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

static struct sel_id *sel_new(struct sel_set *s)
{
    s->ids = xgrow(s->ids, s->n, &s->cap, sizeof *s->ids);
    struct sel_id *id = &s->ids[s->n++];
    memset(id, 0, sizeof *id);
    return id;
}

/* A field as given, or NULL for "*" (any). */
static char *sel_field(const char *start, size_t len, const char *prefix)
{
    if (len == 1 && *start == '*')
        return NULL;
    size_t p = prefix ? strlen(prefix) : 0;
    char *f = xcalloc(p + len + 1, 1);
    memcpy(f, prefix ? prefix : "", p);
    memcpy(f + p, start, len);
    return f;
}

int sel_parse(struct sel_set *s, const char *text, struct hb_err *err)
{
    const char *f[5] = {text, NULL, NULL, NULL, NULL};
    size_t len[5] = {0};
    int n = 1;
    /* The case is the rest of the line: only the first four colons separate fields. */
    for (const char *p = text; *p && n < 5; p++)
        if (*p == ':')
            f[n++] = p + 1;
    for (int i = 0; i < n; i++) {
        len[i] = i + 1 < n ? (size_t)(f[i + 1] - 1 - f[i]) : strlen(f[i]);
        if (!len[i]) {
            err_set(err, "empty field %d in '%s' (expected BACKEND:DEVICE:wWIDTH:LANG/KERNEL:CASE, globs allowed)",
                    i + 1, text);
            return -1;
        }
    }
    struct sel_id *id = sel_new(s);
    id->backend = sel_field(f[0], len[0], NULL);
    if (n > 1)
        id->device = sel_field(f[1], len[1], NULL);
    if (n > 2)
        id->width = sel_field(f[2], len[2], f[2][0] == 'w' || f[2][0] == '*' ? NULL : "w");
    if (n > 3) {
        const char *slash = memchr(f[3], '/', len[3]);
        if (slash) {
            id->lang = sel_field(f[3], (size_t)(slash - f[3]), NULL);
            id->kernel = sel_field(slash + 1, len[3] - (size_t)(slash - f[3]) - 1, NULL);
        } else {
            id->kernel = sel_field(f[3], len[3], NULL);
        }
    }
    if (n > 4)
        id->case_name = sel_field(f[4], len[4], NULL);
    return 0;
}

int sel_add_failed(struct sel_set *s, const char *path, struct run_header *recorded, struct hb_err *err)
{
    struct jsonl_run run;
    int added = 0;
    if (jsonl_read_run(path, &run, err))
        return -1;
    /* A file that cannot prove it is a whole run (empty, only a header, a run killed before
     * its end record) would rerun nothing and pass: refused. */
    const char *why = jsonl_run_incomplete(&run);
    if (!why && !run.n)
        why = "holds no results: its run ran nothing";
    if (why) {
        err_set(err, "%s: nothing could be rerun from it", why); /* the option names the file */
        jsonl_run_free(&run);
        return -1;
    }
    if (recorded && run.has_header)
        *recorded = run.header;
    for (int i = 0; i < run.n; i++) {
        const struct rep_result *r = &run.results[i];
        if (!verdict_fails_run(r->verdict))
            continue;
        struct sel_id *id = sel_new(s);
        char width[16];
        snprintf(width, sizeof width, "w%d", r->width);
        id->exact = 1;
        id->backend = xstrdup(r->backend);
        id->device = xstrdup(r->device);
        id->width = xstrdup(width);
        id->lang = xstrdup(r->lang);
        id->kernel = xstrdup(r->kernel);
        id->case_name = r->group_row ? NULL : xstrdup(r->case_name);
        added++;
    }
    if (!added && run.interrupted) {
        err_set(err, "no FAIL, XPASS or ERROR, but its run was interrupted: the results it did not reach are unknown "
                     "(run it again whole)");
        added = -1;
    }
    jsonl_run_free(&run);
    return added;
}

void sel_free(struct sel_set *s)
{
    for (int i = 0; i < s->n; i++) {
        struct sel_id *id = &s->ids[i];
        free(id->backend), free(id->device), free(id->width);
        free(id->lang), free(id->kernel), free(id->case_name);
    }
    free(s->ids);
    memset(s, 0, sizeof *s);
}

/* One field: a NULL pattern or an unknown value matches. */
static int sel_field_match(const char *pattern, const char *value, int exact)
{
    if (!pattern || !value)
        return 1;
    return exact ? !strcmp(pattern, value) : !fnmatch(pattern, value, 0);
}

static int sel_one(const struct sel_id *id, const struct sel_key *k)
{
    char width[16], device[16];
    snprintf(width, sizeof width, "w%d", k->width);
    snprintf(device, sizeof device, "%d", k->device);
    int device_ok = id->exact ? sel_field_match(id->device, k->device_name, 1)
                              : (k->device < 0 && !k->device_name) || sel_field_match(id->device, device, 0) ||
                                    sel_field_match(id->device, k->device_name ? k->device_name : "", 0);
    return device_ok && sel_field_match(id->backend, k->backend, id->exact) &&
           sel_field_match(id->width, k->width < 0 ? NULL : width, id->exact) &&
           sel_field_match(id->lang, k->lang, id->exact) && sel_field_match(id->kernel, k->kernel, id->exact) &&
           sel_field_match(id->case_name, k->case_name, id->exact);
}

int sel_match(const struct sel_set *s, const struct sel_key *key)
{
    if (!s->n)
        return 1;
    for (int i = 0; i < s->n; i++)
        if (sel_one(&s->ids[i], key))
            return 1;
    return 0;
}

void sel_format(char *buf, size_t len, const char *backend, int device, int width, const char *lang, const char *kernel,
                const char *case_name)
{
    snprintf(buf, len, "%s:%d:w%d:%s/%s:%s", backend, device, width, lang, kernel, case_name);
}
