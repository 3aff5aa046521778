/* SPDX-License-Identifier: MIT */
/* merge.c: `harness merge`. Reads shard outputs, checks that they add up (each file whole,
 * each shard once, no result twice), undoes what only a slice could get wrong, and replays
 * every record through the ordinary report writers, so the merged JUnit, JSON, summary and
 * exit code are those one unsharded run would give. Runs no kernels. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"
#include "report.h"
#include "run.h"

/* Whether record i is an artefact of slicing. Each shard opens every group it has cases for,
 * so a group-wide SKIP or ERROR comes once per shard: keep the first. And each shard judges
 * XPASS (a known-bad kernel passing every case) on its own slice: one shard passing while
 * another caught the bug, or failed to run a case, is no XPASS for the whole run. */
static int shard_artefact(const struct rep_result *all, int n, int i)
{
    const struct rep_result *r = &all[i];
    if (!r->group_row)
        return 0;
    for (int k = 0; k < i; k++)
        if (all[k].group_row && all[k].verdict == r->verdict && rep_same_group(&all[k], r) &&
            !strcmp(all[k].case_name, r->case_name))
            return 1;
    if (r->verdict != V_XPASS)
        return 0;
    int ran = 0, passed = 0;
    for (int k = 0; k < n; k++)
        if (!all[k].group_row && rep_same_group(&all[k], r)) {
            ran++;
            passed += all[k].verdict == V_PASS || all[k].verdict == V_SUSPECT;
        }
    return !verdict_group_xpass(ran, passed);
}

/* Whether one input is whole: not empty, a header first, an end record whose count matches. */
static int input_whole(const char *path, const struct jsonl_run *run)
{
    const char *why = jsonl_run_incomplete(run);
    if (why)
        fprintf(stderr, "harness: merge: %s: %s\n", path, why);
    return !why;
}

/* What makes shard b part of another run than shard a, or NULL. Their selections (the
 * header's fingerprint of cases, kernels, filters, known bugs and schedule) must be equal;
 * from a harness that wrote none, what the header names: catalogue, manifests, known bugs,
 * schedule. */
static const char *shard_other_run(const struct run_header *a, const struct run_header *b)
{
    if (a->guard_bytes != b->guard_bytes)
        return "its guard bands differ (--guard-kib)";
    if (a->selection[0] && b->selection[0])
        return strcmp(a->selection, b->selection)
                   ? "its selection differs (the catalogue, kernels, filters, known bugs or schedule)"
                   : NULL;
    int same = !strcmp(a->tier, b->tier) && !strcmp(a->cases, b->cases) && a->n_manifests == b->n_manifests &&
               a->only_manifest == b->only_manifest && !strcmp(a->known_bugs, b->known_bugs) &&
               !strcmp(a->schedule, b->schedule);
    for (int i = 0; same && i < a->n_manifests; i++)
        same = !strcmp(a->manifests[i], b->manifests[i]);
    return same ? NULL : "its catalogue, manifests, known bugs or schedule differ";
}

/* Shards of one split: the same n everywhere, each index once, all there unless allowed, all
 * of one run. */
static int shards_add_up(const struct merge_opts *o, const struct jsonl_run *runs)
{
    int n = runs[0].header.shards, seen[4096] = {0}, count = 0;
    for (int f = 0; f < o->n_inputs; f++) {
        const struct run_header *h = &runs[f].header;
        if (h->shards != n || (n && (h->shard < 0 || h->shard >= n || n > 4096))) {
            fprintf(stderr, "harness: merge: %s: shard %d/%d does not belong with %s (%d shards)\n", o->inputs[f],
                    h->shard, h->shards, o->inputs[0], n);
            return 0;
        }
        if (n && seen[h->shard]++) {
            fprintf(stderr, "harness: merge: %s: shard %d/%d given twice\n", o->inputs[f], h->shard, n);
            return 0;
        }
        const char *other = n ? shard_other_run(&runs[0].header, h) : NULL;
        if (other) {
            fprintf(stderr, "harness: merge: %s: shard %d/%d is not of the run %s is a shard of: %s\n", o->inputs[f],
                    h->shard, n, o->inputs[0], other);
            return 0;
        }
        count += n != 0;
    }
    if (n && count < n && !o->allow_partial) {
        fprintf(stderr,
                "harness: merge: %d of %d shards given: the merge would not cover the run "
                "(--allow-partial merges them anyway)\n",
                count, n);
        return 0;
    }
    return 1;
}

static int key_cmp(const void *pa, const void *pb)
{
    const struct rep_result *a = *(const struct rep_result *const *)pa, *b = *(const struct rep_result *const *)pb;
    int c;
    if ((c = strcmp(a->backend, b->backend)) || (c = strcmp(a->device, b->device)) || (c = strcmp(a->lang, b->lang)) ||
        (c = strcmp(a->kernel, b->kernel)) || (c = strcmp(a->case_name, b->case_name)))
        return c;
    return a->width != b->width ? (a->width > b->width) - (a->width < b->width)
                                : (a->device_index > b->device_index) - (a->device_index < b->device_index);
}

/* The same case result twice (the same file or shard given twice) is an error. */
static int no_repeats(const struct rep_result *all, int n)
{
    const struct rep_result **by_key = xcalloc((size_t)n + 1, sizeof *by_key);
    int m = 0, rc = 1;
    for (int i = 0; i < n; i++)
        if (!all[i].group_row)
            by_key[m++] = &all[i];
    qsort(by_key, (size_t)m, sizeof *by_key, key_cmp);
    for (int i = 1; i < m && rc; i++)
        if (!key_cmp(&by_key[i - 1], &by_key[i])) {
            char id[512];
            rep_result_id(by_key[i], id, sizeof id);
            fprintf(stderr, "harness: merge: %s is in the inputs twice (the same shard or file given twice?)\n", id);
            rc = 0;
        }
    free(by_key);
    return rc;
}

/* Reads every input into one array, in the order given, and its header into *h; *interrupted
 * when any input's run was interrupted. */
static int read_all(const struct merge_opts *o, struct rep_result **all, int *n, struct run_header *h, int *interrupted)
{
    struct jsonl_run *runs = xcalloc((size_t)o->n_inputs, sizeof *runs);
    int ok = 1, total = 0;
    for (int f = 0; f < o->n_inputs && ok; f++) {
        struct hb_err err = {{0}};
        if (jsonl_read_run(o->inputs[f], &runs[f], &err)) {
            fprintf(stderr, "harness: merge: %s\n", err.msg);
            ok = 0;
        }
        ok = ok && input_whole(o->inputs[f], &runs[f]);
        *interrupted |= runs[f].interrupted;
        total += runs[f].n;
    }
    ok = ok && shards_add_up(o, runs);
    *all = xcalloc((size_t)total + 1, sizeof **all);
    *n = 0;
    for (int f = 0; f < o->n_inputs; f++) {
        if (ok && runs[f].n)
            memcpy(*all + *n, runs[f].results, (size_t)runs[f].n * sizeof **all);
        *n += ok ? runs[f].n : 0;
        jsonl_run_free(&runs[f]);
    }
    if (ok) {
        *h = runs[0].header;
        h->shard = h->shards = 0;
    }
    free(runs);
    return ok && no_repeats(*all, *n) ? 0 : -1;
}
/* Results of one JUnit suite (backend, device, width) together, in the order the suites
 * first appear, each suite's results in input order: case shards interleave them. */
static void group_suites(struct rep_result *all, int n)
{
    int *rank = xcalloc((size_t)n + 1, sizeof *rank);
    for (int i = 0; i < n; i++) {
        rank[i] = i;
        for (int k = 0; k < i; k++)
            if (all[k].width == all[i].width && all[k].device_index == all[i].device_index &&
                !strcmp(all[k].backend, all[i].backend) && !strcmp(all[k].device, all[i].device)) {
                rank[i] = rank[k];
                break;
            }
    }
    struct rep_result *sorted = xcalloc((size_t)n + 1, sizeof *sorted);
    int m = 0;
    for (int r = 0; r < n; r++)
        for (int i = r; i < n; i++)
            if (rank[i] == r)
                sorted[m++] = all[i];
    memcpy(all, sorted, (size_t)n * sizeof *all);
    free(sorted);
    free(rank);
}

int merge_files(const struct merge_opts *o)
{
    struct rep_result *all = NULL;
    int n = 0;
    struct run_header *h = xcalloc(1, sizeof *h);
    struct out_opts out = o->out;
    struct hb_err err = {{0}};
    struct rep_sink *sink = xcalloc(1, sizeof *sink);
    int code = EXIT_USAGE, interrupted = o->interrupted;
    if (read_all(o, &all, &n, h, &interrupted))
        goto done;
    if (out_prepare(&out, &err) || rep_open(sink, o->json, o->junit, h, &err)) {
        fprintf(stderr, "harness: merge: %s\n", err.msg);
        out_release(&out);
        goto done;
    }
    group_suites(all, n);
    int dropped = 0;
    for (int i = 0; i < n; i++) {
        if (shard_artefact(all, n, i))
            dropped++;
        else
            rep_add(sink, &all[i]);
    }
    printf("harness merge: %d input file%s, %d records, %d repeated group rows or shard-local XPASS dropped\n",
           o->n_inputs, o->n_inputs == 1 ? "" : "s", n, dropped);
    code = out_finish(&out, sink, rep_failed(sink) ? EXIT_FAILURES : EXIT_OK, interrupted, &err);
    if (err.msg[0])
        fprintf(stderr, "harness: merge: %s\n", err.msg);
done:
    rep_close(sink);
    free(sink);
    free(h);
    free(all);
    return code;
}
