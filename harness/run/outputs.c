/* outputs.c: see outputs.h. */
#include "outputs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "html.h"
#include "run.h"
#include "text.h"

static FILE *open_output(const char *path, struct hb_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
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
    if (o->record && !(o->record_f = open_output(o->record, err)))
        return out_release(o), -1;
    return 0;
}

void out_release(struct out_opts *o)
{
    if (o->html_f)
        fclose(o->html_f);
    if (o->record_f)
        fclose(o->record_f);
    if (o->baseline) {
        jsonl_run_free(o->baseline);
        free(o->baseline);
    }
    o->html_f = o->record_f = NULL;
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

int out_finish(struct out_opts *o, struct rep_sink *s, int code, int interrupted, struct hb_err *err)
{
    if (rep_finish(s, interrupted, err))
        code = EXIT_USAGE;
    else if (o->html_f && (html_write(o->html_f, s), close_output(&o->html_f, o->html, err)))
        code = EXIT_USAGE;
    else if (o->record_f && (base_record(o->record_f, s), close_output(&o->record_f, o->record, err)))
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
