/* SPDX-License-Identifier: MIT */
/* parts.c: cuts long groups into parts. Groups run one per worker, so a run ends no sooner
 * than its longest group: on a GPU the standard tier's SGEMM groups each took 4 s of a 10 s
 * run while most workers sat idle. A part is a run of consecutive cases of one group, a group
 * of its own that any worker of its key may take; parts keep the serial order, so rows go out
 * as one group's would (sched_emit.c folds what the parts would each repeat). */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

/* Parts aimed at per job: enough that the longest-first order can even out the workers. */
#define PARTS_PER_JOB 2
/* The vendor library's first call in each worker sets it up (half a second for cuBLAS): its
 * group is cut in two at most, so that it neither ends the run alone nor pays that often. */
#define PARTS_VENDOR_MAX 2

/* Not on a backend whose kernels run in the worker's own process (the emulator: its random
 * schedules count launches per process, and a group's schedule must not depend on the groups
 * a worker ran before it); not under compute-sanitizer, which wraps one group's process. */
int plan_reuses_workers(const struct run_opts *o, const struct group *g)
{
    return !(g->p->caps & HB_CAP_IN_PROCESS) && !o->sanitize;
}

/* Only a group whose cases stand alone is cut: not a known-bad kernel's (its first catch
 * ends it, and an XPASS needs every case), not one run in a worker of its own. */
static int parts_allowed(const struct run_ctx *cx, const struct group *g)
{
    if (!plan_reuses_workers(cx->o, g) || g->skip_racecheck || g->n_cases < 2)
        return 0;
    return !g->k || (!g->k->expect && !kern_expected_bad(g->k, g->width.width));
}

/* A group's work, its cases' costs: not the weights that only put a group early (a canary's
 * wait for its timeout, its restarts), which no cut can share out. */
static double parts_work(const struct run_ctx *cx, const struct group *g)
{
    double work = 0;
    for (int i = 0; i < g->n_cases; i++)
        work += plan_case_cost(cx->data[g->cases[i]].c);
    return work;
}

/* Appends the parts of g, each about cost / n of its cases' work, to out. */
static void parts_cut(const struct run_ctx *cx, const struct group *g, int n, struct group *out, int *n_out)
{
    double done = 0;
    int from = 0;
    for (int p = 0; p < n; p++) {
        struct group part = *g;
        int to = from;
        double cost = 0;
        /* At least one case per part, and enough left for the parts after it. */
        while (to < g->n_cases - (n - 1 - p) && (to == from || p == n - 1 || done + cost < g->cost * (p + 1) / n))
            cost += plan_case_cost(cx->data[g->cases[to++]].c);
        done += cost;
        part.cases = xcalloc((size_t)(to - from) + 1, sizeof *part.cases);
        memcpy(part.cases, g->cases + from, (size_t)(to - from) * sizeof *part.cases);
        part.n_cases = to - from, part.cost = cost;
        part.part = p, part.parts = n;
        part.first_of_width = g->first_of_width && p == 0;
        part.ordinal = *n_out;
        out[(*n_out)++] = part;
        from = to;
    }
}

int plan_split_groups(const struct run_ctx *cx, struct group **groups, int n_groups)
{
    double total = 0;
    int n_out = 0, wanted = 0;
    for (int i = 0; i < n_groups; i++)
        total += parts_work(cx, &(*groups)[i]);
    double target = total / (PARTS_PER_JOB * (cx->jobs > 0 ? cx->jobs : 1));
    int *n_parts = xcalloc((size_t)n_groups + 1, sizeof *n_parts);
    for (int i = 0; i < n_groups; i++) {
        const struct group *g = &(*groups)[i];
        double work = parts_work(cx, g);
        n_parts[i] = 1;
        if (cx->jobs > 1 && target > 0 && parts_allowed(cx, g) && work > target) {
            double want = work / target + 0.999;
            int most = g->k ? cx->jobs : PARTS_VENDOR_MAX;
            n_parts[i] = want > most ? most : (int)want;
            if (n_parts[i] > g->n_cases)
                n_parts[i] = g->n_cases;
        }
        wanted += n_parts[i];
    }
    struct group *out = xcalloc((size_t)wanted + 1, sizeof *out);
    for (int i = 0; i < n_groups; i++) {
        struct group *g = &(*groups)[i];
        if (n_parts[i] > 1) {
            parts_cut(cx, g, n_parts[i], out, &n_out);
            free(g->cases);
        } else {
            g->ordinal = n_out, g->parts = 1;
            out[n_out++] = *g;
        }
    }
    free(n_parts);
    free(*groups);
    *groups = out;
    return n_out;
}
