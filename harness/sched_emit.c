/* sched_emit.c: the scheduler's output side. Groups finish in any order; their rows go to
 * the reports and the terminal strictly in group order, each group after every earlier one,
 * so JSON, JUnit and the table are those of a serial run whatever the job count. --maxfail
 * counts failures in that same order, so a stopped run is deterministic too; the groups it
 * did not run get SKIP rows saying so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

struct sched_rank {
    double cost;
    int ordinal;
};

/* Longest first; equal costs in serial order, so the schedule is reproducible. */
static int sched_by_cost(const void *a, const void *b)
{
    const struct sched_rank *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return x->ordinal - y->ordinal;
}

/* A group row the parent writes itself: the race-detector SKIP, or a group --maxfail cut. */
static void sched_skip_row(struct sup_group *sg, const char *why)
{
    struct rep_result r;
    run_group_row(&r, sg->g, V_SKIP, why);
    sup_push_row(sg, &r);
}

void sched_init(struct sched *s, struct run_ctx *cx, struct group *groups, int n_groups)
{
    memset(s, 0, sizeof *s);
    s->cx = cx, s->groups = groups, s->n_groups = n_groups;
    s->stopped_at = -1;
    if (cx->jobs > SCHED_MAX_WORKERS)
        cx->jobs = SCHED_MAX_WORKERS;
    s->w = xcalloc((size_t)cx->jobs, sizeof *s->w);
    s->sg = xcalloc((size_t)n_groups + 1, sizeof *s->sg);
    s->order = xcalloc((size_t)n_groups + 1, sizeof *s->order);
    struct sched_rank *rank = xcalloc((size_t)n_groups + 1, sizeof *rank);
    for (int i = 0; i < n_groups; i++) {
        sup_group_init(&s->sg[i], &groups[i]);
        rank[i] = (struct sched_rank){groups[i].cost, i};
        s->total_cost += groups[i].cost;
        if (groups[i].skip_racecheck) {
            sched_skip_row(&s->sg[i], "needs a race detector: run with --sanitize racecheck");
            s->sg[i].state = SUP_FINISHED;
            s->finished++;
        }
    }
    qsort(rank, (size_t)n_groups, sizeof *rank, sched_by_cost);
    for (int i = 0; i < n_groups; i++)
        s->order[i] = rank[i].ordinal;
    free(rank);
    prog_start(cx->o->quiet, s->total_cost, n_groups);
}

void sched_group_done(struct sched *s, struct sup_group *sg)
{
    if (!sg->stop && sg->next < sg->g->n_cases) {
        sg->state = SUP_PENDING;
        return;
    }
    sup_group_finish(s->cx, sg);
    s->finished++;
    s->done_cost += sg->g->cost;
}

static void sched_header(const struct group *g)
{
    const struct hb_device_info *d = &g->p->dev[g->device];
    if (g->first_of_width)
        printf("%s: %s (%s), width %d\n", g->p->name, d->name, d->driver, g->width.width);
}

/* Rows of sg from where its emission stopped; at --maxfail the run stops after that row. */
static void sched_emit_rows(struct sched *s, struct sup_group *sg)
{
    struct run_ctx *cx = s->cx;
    while (sg->emitted < sg->n_rows && !cx->stopped) {
        const struct rep_result *r = &sg->rows[sg->emitted++];
        double t0 = now_ms();
        run_add_result(cx, r, sg->g->slot);
        cx->report_ms += now_ms() - t0;
        s->failures += verdict_fails_run(r->verdict);
        if (cx->o->maxfail && s->failures >= cx->o->maxfail) {
            cx->stopped = 1;
            s->stopped_at = sg->g->ordinal;
        }
    }
}

void sched_emit(struct sched *s)
{
    while (s->emitted < s->n_groups && s->sg[s->emitted].state == SUP_FINISHED && !s->cx->stopped) {
        struct sup_group *sg = &s->sg[s->emitted];
        const struct group *g = sg->g;
        prog_clear();
        sched_header(g);
        sched_emit_rows(s, sg);
        if (!s->cx->o->quiet && g->n_cases && !s->cx->stopped) {
            printf("  done    %s %s w%d %s/%s: %d cases in %.1f s\n", g->p->name, g->p->dev[g->device].name,
                   g->width.width, g->k ? g->k->lang : "vendor", g->k ? g->k->name : g->p->vendor, sg->ran,
                   (sg->ended - sg->started) / 1e3);
            fflush(stdout);
        }
        s->emitted++;
    }
}

/* The failures so far as rows arrive (not as they go out, which waits for earlier groups). */
void sched_progress(const struct sched *s)
{
    long failing = 0;
    for (int i = 0; i < s->n_groups; i++)
        failing += s->sg[i].failing;
    prog_update(s->finished, s->done_cost, s->results, failing);
}

/* --maxfail reached: every group from the one it stopped in gets a SKIP row in the reports
 * (not on the terminal: one line says it), so they say the run stopped and what it left. */
static void sched_finish_stopped(struct sched *s)
{
    char why[256];
    snprintf(why, sizeof why, "not run: the run stopped after %ld failures (--maxfail %d)", s->failures,
             s->cx->o->maxfail);
    int skipped = 0;
    for (int i = s->stopped_at; i < s->n_groups; i++) {
        struct sup_group *sg = &s->sg[i];
        if (i == s->stopped_at && sg->state == SUP_FINISHED && sg->emitted == sg->n_rows)
            continue; /* the failure was its last row */
        struct rep_result r;
        run_group_row(&r, sg->g, V_SKIP, why);
        rep_add(&s->cx->sink, &r);
        skipped++;
    }
    printf("harness: stopped after %ld failures (--maxfail %d): %d groups did not run or did not finish "
           "(SKIP rows in the reports)\n",
           s->failures, s->cx->o->maxfail, skipped);
}

/* Interrupted: the rows that came, in group order, unfinished groups included. */
static void sched_finish_interrupted(struct sched *s)
{
    for (int i = s->emitted; i < s->n_groups; i++) {
        struct sup_group *sg = &s->sg[i];
        if (sg->emitted < sg->n_rows)
            sched_header(sg->g);
        sched_emit_rows(s, sg);
    }
}

void sched_finish(struct sched *s)
{
    prog_end();
    if (s->cx->stopped)
        sched_finish_stopped(s);
    else if (sup_interrupted)
        sched_finish_interrupted(s);
    for (int i = 0; i < s->n_groups; i++)
        sup_group_free(&s->sg[i]);
    free(s->sg), free(s->order), free(s->w);
    s->sg = NULL, s->order = NULL, s->w = NULL;
}
