/* SPDX-License-Identifier: MIT */
/* baseline.c: recording a run and comparing a later run with the record. Records are matched
 * by (backend, device, lang, kernel, width, case) after sorting both sides, so the order of
 * either run does not matter; identical keys (two identical GPUs) pair up in run order. A
 * record must prove it is whole (header, end record, count) before it gates anything: an
 * empty or cut baseline passes everything as "new". It reports and counts; the exit code
 * stays with main. */
#include "baseline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

/* Below this a kernel's time is mostly launch overhead and timer resolution: a percentage of
 * it is noise, so such timings are not compared. */
#define BASE_PERF_FLOOR_MS 0.05

void base_opts_init(struct base_opts *o)
{
    o->allow_new = 0;
    o->error_growth = 2.0;
    o->perf_pct = 10.0;
    o->fail_on_bits = 0;
    o->fail_on_perf = 0;
}

static int timed(const struct rep_result *r)
{
    return !r->group_row && (r->verdict == V_PASS || r->verdict == V_SUSPECT) && r->kernel_ms > 0 &&
           isfinite(r->kernel_ms);
}

double *base_perf_ratios(const struct rep_result *all, int n)
{
    double *ratio = xcalloc((size_t)n + 1, sizeof *ratio);
    /* Vendor rows first: one per case and device, far fewer than the kernels' rows. */
    int *vendor = xcalloc((size_t)n + 1, sizeof *vendor), nv = 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(all[k].lang, "vendor") && timed(&all[k]))
            vendor[nv++] = k;
    for (int i = 0; i < n && nv; i++) {
        const struct rep_result *r = &all[i];
        if (!strcmp(r->lang, "vendor") || !timed(r))
            continue;
        for (int k = 0; k < nv; k++) {
            const struct rep_result *v = &all[vendor[k]];
            if (v->width == r->width && !strcmp(v->backend, r->backend) && !strcmp(v->device, r->device) &&
                !strcmp(v->case_name, r->case_name)) {
                ratio[i] = r->kernel_ms / v->kernel_ms;
                break;
            }
        }
    }
    free(vendor);
    return ratio;
}

void base_record(FILE *f, const struct rep_sink *s)
{
    char *buf = NULL;
    size_t len = 0;
    double *ratios = base_perf_ratios(s->all, s->n);
    jsonl_write_header(f, &s->hdr);
    for (int i = 0; i < s->n; i++) {
        /* The writer's own line, with one field added before its closing brace. */
        FILE *m = open_memstream(&buf, &len);
        if (!m) {
            jsonl_write(f, &s->all[i]); /* no memory for the copy: the record without its ratio */
            continue;
        }
        jsonl_write(m, &s->all[i]);
        fclose(m);
        double ratio = ratios[i];
        if (ratio > 0 && len >= 2 && buf[len - 2] == '}') {
            fwrite(buf, 1, len - 2, f);
            fprintf(f, ",\"perf_ratio\":%.6g}\n", ratio);
        } else {
            fwrite(buf, 1, len, f);
        }
        free(buf);
        buf = NULL;
    }
    free(ratios);
    jsonl_write_end(f, s->n, s->interrupted);
}

struct jsonl_run *base_load(const char *path, struct hb_err *err)
{
    struct jsonl_run *run = xcalloc(1, sizeof *run);
    struct hb_err why = {{0}};
    if (jsonl_read_run(path, run, err)) {
        free(run);
        return NULL;
    }
    if (!run->has_header)
        err_set(&why,
                "no run header: not a baseline from --record (or one written before schema %d: record it "
                "again)",
                JSONL_SCHEMA);
    else if (!run->has_end)
        err_set(&why, "no end record: the file was cut short");
    else if (run->end_results != run->n)
        err_set(&why, "%d results where its end record says %ld: the file was damaged", run->n, run->end_results);
    else if (run->interrupted)
        err_set(&why, "recorded from an interrupted run: it covers only part of its cases");
    else if (!run->n)
        err_set(&why, "holds no results: nothing to compare with");
    if (why.msg[0]) {
        err_set(err, "--compare %s: %s", path, why.msg);
        jsonl_run_free(run);
        free(run);
        return NULL;
    }
    return run;
}

/* One side of the comparison, sortable by key; idx is the place in its own run. */
struct base_ref {
    const struct rep_result *r;
    int idx;
};

static int key_cmp(const struct rep_result *a, const struct rep_result *b)
{
    int c;
    if ((c = strcmp(a->backend, b->backend)) || (c = strcmp(a->device, b->device)) || (c = strcmp(a->lang, b->lang)) ||
        (c = strcmp(a->kernel, b->kernel)))
        return c;
    if (a->device_index != b->device_index)
        return a->device_index < b->device_index ? -1 : 1;
    if (a->width != b->width)
        return a->width < b->width ? -1 : 1;
    return strcmp(a->case_name, b->case_name);
}

static int ref_cmp(const void *pa, const void *pb)
{
    const struct base_ref *a = pa, *b = pb;
    int c = key_cmp(a->r, b->r);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static struct base_ref *sorted(const struct rep_result *all, int n)
{
    struct base_ref *refs = xcalloc((size_t)n + 1, sizeof *refs);
    for (int i = 0; i < n; i++)
        refs[i] = (struct base_ref){&all[i], i};
    qsort(refs, (size_t)n, sizeof *refs, ref_cmp);
    return refs;
}

static void key_text(FILE *out, const struct rep_result *r)
{
    fprintf(out, "%s %s w%d %s/%s %s", r->backend, r->device, r->width, r->lang, r->kernel, r->case_name);
}

struct base_tally {
    int failing, worse, grew, missing, bits, slower, better, faster, added, changed;
};

static void line(FILE *out, const char *tag, const struct rep_result *r, const char *what)
{
    fprintf(out, "  %-8s ", tag);
    key_text(out, r);
    fprintf(out, ": %s\n", what);
}

static void compare_pair(FILE *out, const struct base_opts *o, const double *old_ratios, const struct base_ref *a,
                         const double *new_ratios, const struct base_ref *b, struct base_tally *t)
{
    const struct rep_result *was = a->r, *now = b->r;
    char what[640];
    if (was->verdict != now->verdict) {
        int got_worse = verdict_fails_run(now->verdict) && !verdict_fails_run(was->verdict);
        int got_better = verdict_fails_run(was->verdict) && !verdict_fails_run(now->verdict);
        snprintf(what, sizeof what, "verdict %s -> %s%s%.400s", verdict_name(was->verdict), verdict_name(now->verdict),
                 now->why[0] ? ": " : "", now->why);
        line(out, got_worse ? "WORSE" : got_better ? "better" : "changed", now, what);
        t->worse += got_worse, t->failing += got_worse, t->better += got_better;
        t->changed += !got_worse && !got_better;
    }
    if (was->group_row || now->group_row)
        return;
    double r0 = was->cmp.max_ratio, r1 = now->cmp.max_ratio;
    if (was->cmp.elements && now->cmp.elements && r1 > 1 && (isinf(r1) ? !isinf(r0) : r1 > r0 * o->error_growth)) {
        snprintf(what, sizeof what, "error grew: max ratio %.3g -> %.3g (threshold %.3g), more than x%g", r0, r1,
                 now->cmp.threshold, o->error_growth);
        /* A known-bad kernel caught both times (a race canary's output differs run to run):
         * how wrong it is carries no news, so it is shown, not failed. */
        int caught_both = was->verdict == V_XFAIL && now->verdict == V_XFAIL;
        line(out, caught_both ? "changed" : "WORSE", now, what);
        t->grew += !caught_both, t->failing += !caught_both, t->changed += caught_both;
    }
    if (was->output_hash && now->output_hash && was->output_hash != now->output_hash) {
        snprintf(what, sizeof what, "output bits changed (hash %016llx -> %016llx)",
                 (unsigned long long)was->output_hash, (unsigned long long)now->output_hash);
        line(out, o->fail_on_bits ? "WORSE" : "bits", now, what);
        t->bits++, t->failing += o->fail_on_bits != 0;
    }
    if (!timed(was) || !timed(now) || was->kernel_ms < BASE_PERF_FLOOR_MS || now->kernel_ms < BASE_PERF_FLOOR_MS)
        return;
    double p0 = old_ratios[a->idx], p1 = new_ratios[b->idx];
    int by_vendor = p0 > 0 && p1 > 0;
    double v0 = by_vendor ? p0 : was->kernel_ms, v1 = by_vendor ? p1 : now->kernel_ms;
    double pct = 100.0 * (v1 / v0 - 1.0);
    if (fabs(pct) <= o->perf_pct)
        return;
    if (by_vendor)
        snprintf(what, sizeof what, "%s %+.0f%%: %.3g -> %.3g times the vendor library's time",
                 pct > 0 ? "slower" : "faster", pct, v0, v1);
    else
        snprintf(what, sizeof what, "%s %+.0f%%: kernel %.3g ms -> %.3g ms (no vendor row to compare with)",
                 pct > 0 ? "slower" : "faster", pct, v0, v1);
    if (pct > 0) {
        line(out, o->fail_on_perf ? "WORSE" : "slower", now, what);
        t->slower++, t->failing += o->fail_on_perf != 0;
    } else {
        line(out, "faster", now, what);
        t->faster++;
    }
}

/* A driver string that changed between the runs, once per backend and device: the reason a
 * baseline exists. */
static int driver_notes(FILE *out, const struct base_ref *a, const struct base_ref *b, int pairs_n, int *pair_a,
                        int *pair_b)
{
    int notes = 0;
    for (int p = 0; p < pairs_n; p++) {
        const struct rep_result *was = a[pair_a[p]].r, *now = b[pair_b[p]].r;
        if (!strcmp(was->driver, now->driver))
            continue;
        int seen = 0;
        for (int q = 0; q < p && !seen; q++) {
            const struct rep_result *w = a[pair_a[q]].r, *x = b[pair_b[q]].r;
            seen = !strcmp(w->backend, was->backend) && !strcmp(w->device, was->device) &&
                   !strcmp(w->driver, was->driver) && !strcmp(x->driver, now->driver);
        }
        if (seen)
            continue;
        fprintf(out, "  note     %s %s: driver %s -> %s\n", now->backend, now->device, was->driver, now->driver);
        notes++;
    }
    return notes;
}

int base_compare(const struct jsonl_run *old, const char *path, const struct rep_sink *s, const struct base_opts *o,
                 FILE *out, struct hb_err *err)
{
    struct base_opts defaults;
    base_opts_init(&defaults);
    if (!o)
        o = &defaults;
    const struct rep_result *old_all = old->results;
    int on = old->n;
    struct base_ref *a = sorted(old_all, on), *b = sorted(s->all, s->n);
    int *pair_a = xcalloc((size_t)(on < s->n ? on : s->n) + 1, sizeof *pair_a);
    int *pair_b = xcalloc((size_t)(on < s->n ? on : s->n) + 1, sizeof *pair_b);
    int pairs = 0;
    for (int i = 0, j = 0; i < on && j < s->n;) {
        int c = key_cmp(a[i].r, b[j].r);
        if (!c)
            pair_a[pairs] = i++, pair_b[pairs++] = j++;
        else if (c < 0)
            i++;
        else
            j++;
    }
    fprintf(out, "\nBaseline %s: %d records then, %d now, %d matched\n", path, on, s->n, pairs);
    struct base_tally t = {0};
    int notes = driver_notes(out, a, b, pairs, pair_a, pair_b);
    double *old_ratios = base_perf_ratios(old_all, on), *new_ratios = base_perf_ratios(s->all, s->n);
    for (int p = 0; p < pairs; p++)
        compare_pair(out, o, old_ratios, &a[pair_a[p]], new_ratios, &b[pair_b[p]], &t);
    free(old_ratios);
    free(new_ratios);
    char what[64];
    for (int i = 0, j = 0; i < on || j < s->n;) {
        int c = i == on ? 1 : j == s->n ? -1 : key_cmp(a[i].r, b[j].r);
        if (!c) {
            i++, j++;
        } else if (c < 0) {
            snprintf(what, sizeof what, "missing from this run (was %s)", verdict_name(a[i].r->verdict));
            line(out, "MISSING", a[i++].r, what);
            t.missing++, t.failing++;
        } else {
            snprintf(what, sizeof what, "new in this run: %s", verdict_name(b[j].r->verdict));
            line(out, "new", b[j++].r, what);
            t.added++;
        }
    }
    fprintf(out,
            "Baseline: %d failing difference%s (%d verdicts worse, %d error growth, %d missing, %d output bit "
            "changes%s, %d slower%s); %d better, %d faster, %d other verdict changes, %d new, %d driver "
            "change%s\n",
            t.failing, t.failing == 1 ? "" : "s", t.worse, t.grew, t.missing, t.bits,
            o->fail_on_bits ? "" : " not failing", t.slower, o->fail_on_perf ? "" : " not failing", t.better, t.faster,
            t.changed, t.added, notes, notes == 1 ? "" : "s");
    free(pair_a);
    free(pair_b);
    free(a);
    free(b);
    if (t.added && !o->allow_new) {
        err_set(err,
                "--compare %s: the baseline does not cover %d result%s of this run (listed as \"new\" above); "
                "record it again, or pass --allow-new",
                path, t.added, t.added == 1 ? "" : "s");
        return -1;
    }
    return t.failing;
}
