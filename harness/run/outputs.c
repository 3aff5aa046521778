/* SPDX-License-Identifier: MIT */
/* outputs.c: see outputs.h. */
#include "outputs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "guard.h"
#include "html.h"
#include "run_opts.h"
#include "text.h"

/* The page that says the run has not finished, in place of --html's (not into a pipe: the
 * page itself follows it there). */
static int html_placeholder(struct rep_file *rf, struct hb_err *err)
{
    if (rf->direct)
        return 0;
    FILE *f = rep_file_begin(rf, err);
    if (!f)
        return -1;
    html_write_unfinished(f);
    return rep_file_commit(rf, err);
}

int out_prepare(struct out_opts *o, struct hb_err *err)
{
    /* The baseline is read before any output is opened: a record written over the baseline it
     * is compared with must not empty it first. */
    if (o->compare && !(o->baseline = base_load(o->compare, err)))
        return -1;
    if (o->html && (rep_file_prepare(&o->html_file, o->html, err) || html_placeholder(&o->html_file, err)))
        return out_release(o), -1;
    if (o->csv && rep_file_prepare(&o->csv_file, o->csv, err))
        return out_release(o), -1;
    if (o->record && rep_file_prepare(&o->record_file, o->record, err))
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
    rep_file_release(&o->html_file);
    rep_file_release(&o->record_file);
    rep_file_release(&o->csv_file);
    if (o->baseline) {
        jsonl_run_free(o->baseline);
        free(o->baseline);
    }
    o->baseline = NULL;
}

/* One after-run file written whole and moved over its target (if it was asked for). */
static int out_write(struct rep_file *rf, void (*write)(FILE *, const struct rep_sink *), const struct rep_sink *s,
                     struct hb_err *err)
{
    if (!rf->path)
        return 0;
    FILE *f = rep_file_begin(rf, err);
    if (!f)
        return -1;
    write(f, s);
    return rep_file_commit(rf, err);
}

/* A baseline is a whole run's: an interrupted one leaves the previous record as it was. */
static int out_record(struct out_opts *o, const struct rep_sink *s, struct hb_err *err)
{
    if (o->record_file.path && s->interrupted) {
        printf("harness: --record %s not written: the run was interrupted (a baseline must cover a whole run)\n",
               o->record);
        return 0;
    }
    return out_write(&o->record_file, base_record, s, err);
}

int out_finish(struct out_opts *o, struct rep_sink *s, int code, int interrupted, struct hb_err *err)
{
    if (rep_finish(s, interrupted, err))
        code = EXIT_USAGE;
    else if (out_write(&o->html_file, html_write, s, err) || out_write(&o->csv_file, rep_write_csv, s, err) ||
             out_record(o, s, err))
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
