/* SPDX-License-Identifier: MIT */
/* outputs.c: see outputs.h. */
#include "outputs.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "guard.h"
#include "html.h"
#include "run.h"
#include "text.h"

static FILE *open_output(const char *path, struct hb_err *err)
{
    FILE *f = out_open(path);
    if (!f)
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

/* --record's temporary beside it (mode 0644: a baseline is read by others, as fopen's file
 * would be), or the file itself when it exists and is not a regular file. */
static FILE *open_record(struct out_opts *o, struct hb_err *err)
{
    struct stat st;
    if (stat(o->record, &st) == 0 && !S_ISREG(st.st_mode))
        return open_output(o->record, err);
    size_t n = strlen(o->record) + 16;
    o->record_tmp = xcalloc(n, 1);
    snprintf(o->record_tmp, n, "%s.XXXXXX", o->record);
    int fd = mkstemp(o->record_tmp);
    FILE *f = fd < 0 || fchmod(fd, 0644) != 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        err_set(err, "%s: cannot write: %s", o->record, strerror(errno));
        if (fd >= 0)
            close(fd), unlink(o->record_tmp);
        free(o->record_tmp), o->record_tmp = NULL;
    }
    return f;
}

int out_prepare(struct out_opts *o, struct hb_err *err)
{
    /* The baseline is read before any output is opened: a record written over the baseline it
     * is compared with must not empty it first. */
    if (o->compare && !(o->baseline = base_load(o->compare, err)))
        return -1;
    if (o->html && !(o->html_f = open_output(o->html, err)))
        return out_release(o), -1;
    if (o->csv && !(o->csv_f = open_output(o->csv, err)))
        return out_release(o), -1;
    if (o->record && !(o->record_f = open_record(o, err)))
        return out_release(o), -1;
    return 0;
}

/* The file path names, as one spelling: its real path, or its folder's and its own name for
 * a file not made yet. NULL when neither resolves (then it cannot be opened at all). */
static char *out_canonical(const char *path)
{
    char *real = realpath(path, NULL);
    if (real)
        return real;
    char *dir = path_dirname(path), *rdir = realpath(dir, NULL);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *out = rdir ? path_join(rdir, base) : NULL;
    free(dir), free(rdir);
    return out;
}

int out_distinct(const char *const *names, const char *const *paths, int n, struct hb_err *err)
{
    char *canon[16] = {0};
    int rc = 0;
    for (int i = 0; i < n && i < 16; i++) {
        struct stat st;
        if (paths[i] && !(stat(paths[i], &st) == 0 && S_ISCHR(st.st_mode)))
            canon[i] = out_canonical(paths[i]);
        for (int k = 0; k < i && canon[i] && !rc; k++)
            if (canon[k] && !strcmp(canon[k], canon[i]))
                rc = -1,
                err_set(err, "%s and %s name one file (%s): each output needs its own", names[k], names[i], paths[i]);
    }
    for (int i = 0; i < n && i < 16; i++)
        free(canon[i]);
    return rc;
}

void out_release(struct out_opts *o)
{
    if (o->html_f)
        fclose(o->html_f);
    if (o->record_f)
        fclose(o->record_f);
    if (o->csv_f)
        fclose(o->csv_f);
    if (o->record_tmp)
        unlink(o->record_tmp), free(o->record_tmp);
    if (o->baseline) {
        jsonl_run_free(o->baseline);
        free(o->baseline);
    }
    o->html_f = o->record_f = o->csv_f = NULL;
    o->record_tmp = NULL;
    o->baseline = NULL;
}

/* Closes f, checking every write that went into it. */
static int close_output(FILE **f, const char *path, struct hb_err *err)
{
    errno = 0;
    int bad = ferror(*f);
    bad |= fclose(*f) != 0;
    *f = NULL;
    if (bad)
        err_set(err, "%s: write failed: %s", path, strerror(errno ? errno : EIO));
    return bad ? -1 : 0;
}

/* The whole record written, then moved over --record in one step. */
static int finish_record(struct out_opts *o, const struct rep_sink *s, struct hb_err *err)
{
    base_record(o->record_f, s);
    if (close_output(&o->record_f, o->record, err))
        return -1;
    if (o->record_tmp && rename(o->record_tmp, o->record) != 0)
        return err_set(err, "%s: cannot write: rename: %s", o->record, strerror(errno)), -1;
    free(o->record_tmp);
    o->record_tmp = NULL;
    return 0;
}

int out_finish(struct out_opts *o, struct rep_sink *s, int code, int interrupted, struct hb_err *err)
{
    if (rep_finish(s, interrupted, err))
        code = EXIT_USAGE;
    else if (o->html_f && (html_write(o->html_f, s), close_output(&o->html_f, o->html, err)))
        code = EXIT_USAGE;
    else if (o->csv_f && (rep_write_csv(o->csv_f, s), close_output(&o->csv_f, o->csv, err)))
        code = EXIT_USAGE;
    else if (o->record_f && finish_record(o, s, err))
        code = EXIT_USAGE;
    else if (o->baseline) {
        int failing = base_compare(o->baseline, o->compare, s, &o->base, stdout, err);
        if (failing < 0)
            code = EXIT_USAGE;
        else if (failing && code == EXIT_OK)
            code = EXIT_FAILURES;
    }
    rep_print_summary(stdout, s);
    out_release(o);
    return code;
}

void out_header(const struct run_opts *ro, struct run_header *h)
{
    rep_header_init(h, ro->argc, ro->argv);
    txt_copy(h->tier, sizeof h->tier, ro->cases ? "" : ro->tier ? ro->tier : "quick");
    txt_copy(h->cases, sizeof h->cases, ro->cases ? ro->cases : "");
    for (int i = 0; i < ro->n_manifests && i < REP_MAX_MANIFESTS; i++)
        txt_copy(h->manifests[h->n_manifests++], REP_PATH, ro->manifests[i]);
    h->only_manifest = ro->no_builtin;
    txt_copy(h->known_bugs, sizeof h->known_bugs, ro->known_bugs ? ro->known_bugs : "");
    txt_copy(h->schedule, sizeof h->schedule, ro->schedule ? ro->schedule : "");
    h->shard = ro->shard, h->shards = ro->shards;
    h->guard_bytes = (long)grd_band();
}
