/* merge.c: `harness merge`. Reads shard outputs, undoes what only a slice could get wrong,
 * and replays every record through the ordinary report writers, so the merged JUnit, JSON,
 * summary and exit code are those one unsharded run would give. Runs no kernels. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"
#include "report.h"
#include "run.h"

static int same_group(const struct rep_result *a, const struct rep_result *b)
{
    return a->width == b->width && !strcmp(a->backend, b->backend) && !strcmp(a->device, b->device) &&
           !strcmp(a->lang, b->lang) && !strcmp(a->kernel, b->kernel);
}

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
        if (all[k].group_row && all[k].verdict == r->verdict && same_group(&all[k], r) &&
            !strcmp(all[k].case_name, r->case_name))
            return 1;
    if (r->verdict != V_XPASS)
        return 0;
    int ran = 0, passed = 0;
    for (int k = 0; k < n; k++)
        if (!all[k].group_row && same_group(&all[k], r)) {
            ran++;
            passed += all[k].verdict == V_PASS || all[k].verdict == V_SUSPECT;
        }
    return !verdict_group_xpass(ran, passed);
}

/* Reads every input into one array, in the order given. */
static int read_all(const struct merge_opts *o, struct rep_result **all, int *n)
{
    *all = NULL;
    *n = 0;
    for (int f = 0; f < o->n_inputs; f++) {
        struct rep_result *part;
        int count;
        struct hb_err err = {{0}};
        if (jsonl_read(o->inputs[f], &part, &count, &err)) {
            fprintf(stderr, "harness: merge: %s\n", err.msg);
            free(*all);
            return -1;
        }
        struct rep_result *grown = realloc(*all, ((size_t)*n + (size_t)count + 1) * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "harness: merge: out of memory\n");
            free(part);
            free(*all);
            return -1;
        }
        *all = grown;
        if (count)
            memcpy(*all + *n, part, (size_t)count * sizeof *part);
        *n += count;
        free(part);
    }
    return 0;
}

int merge_files(const struct merge_opts *o)
{
    struct rep_result *all = NULL;
    int n = 0;
    if (read_all(o, &all, &n))
        return EXIT_USAGE;
    struct rep_sink sink;
    struct hb_err err = {{0}};
    if (rep_open(&sink, o->json, o->junit, &err)) {
        fprintf(stderr, "harness: merge: %s\n", err.msg);
        free(all);
        return EXIT_USAGE;
    }
    int dropped = 0;
    for (int i = 0; i < n; i++) {
        if (shard_artefact(all, n, i))
            dropped++;
        else
            rep_add(&sink, &all[i]);
    }
    printf("harness merge: %d input file%s, %d records, %d repeated group rows or shard-local XPASS dropped\n",
           o->n_inputs, o->n_inputs == 1 ? "" : "s", n, dropped);
    int code = out_finish(&o->out, &sink, rep_failed(&sink) ? EXIT_FAILURES : EXIT_OK, &err);
    if (err.msg[0])
        fprintf(stderr, "harness: merge: %s\n", err.msg);
    rep_close(&sink);
    free(all);
    return code;
}
