/* SPDX-License-Identifier: MIT */
/* sched_emit.c: the scheduler's output side: what workers print, and rows. Groups finish in
 * any order; their rows go to the reports and the terminal strictly in group order, each
 * group after every earlier one (a group cut into parts reads as one), so JSON, JUnit and
 * the table are those of a serial run whatever the job count. --maxfail counts failures in
 * that same order, so a stopped run is deterministic too; the groups it did not run get SKIP
 * rows saying so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"
#include "rows.h"
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

/* A group row the parent writes itself, before any worker: the race-detector SKIP, or a
 * kernel no case runs, an ERROR (no-case) unless --allow-empty makes it a SKIP. */
static void sched_parent_row(struct sup_group *sg, enum hb_verdict verdict, unsigned classes, const char *why)
{
    struct rep_result r;
    rows_group(&r, sg->g, verdict, classes, why);
    sup_push_row(sg, &r);
    sg->state = SUP_FINISHED;
}

/* Keeps what a worker prints until its work ends well (then it goes to stderr as it was) or
 * badly (then its telling line goes into the row). Past the buffer, the older half goes:
 * to stderr when the worker is idle, else dropped and counted. */
void sched_keep_output(struct sup_worker *w, const char *text, size_t n)
{
    size_t cap = sizeof w->out;
    while (n) {
        if (w->out_len == cap) {
            if (w->group < 0) {
                prog_clear();
                fwrite(w->out, 1, cap / 2, stderr);
            } else {
                w->dropped += cap / 2;
            }
            memmove(w->out, w->out + cap / 2, cap - cap / 2);
            w->out_len = cap - cap / 2;
        }
        size_t take = n < cap - w->out_len ? n : cap - w->out_len;
        memcpy(w->out + w->out_len, text, take);
        w->out_len += take, text += take, n -= take;
    }
}

/* What a worker printed during work that ended well goes to stderr as it was. */
void sched_pass_output(struct sup_worker *w)
{
    if (!w->out_len && !w->dropped)
        return;
    prog_clear();
    if (w->dropped)
        fprintf(stderr, "harness: %zu bytes of a worker's output dropped\n", w->dropped);
    fwrite(w->out, 1, w->out_len, stderr);
    w->out_len = w->dropped = 0;
}

void sched_read_output(struct sup_worker *w)
{
    char buf[4096];
    ssize_t n;
    while (w->ch.out_fd >= 0 && (n = read(w->ch.out_fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                close(w->ch.out_fd), w->ch.out_fd = -1;
            return;
        }
        sched_keep_output(w, buf, (size_t)n);
    }
    if (w->ch.out_fd >= 0)
        close(w->ch.out_fd);
    w->ch.out_fd = -1;
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
        if (groups[i].no_case)
            sched_parent_row(&s->sg[i], cx->o->allow_empty ? V_SKIP : V_ERROR, CLS_NO_CASE, groups[i].no_case);
        else if (groups[i].skip_racecheck)
            sched_parent_row(&s->sg[i], V_SKIP, 0, "needs a race detector: run with --sanitize racecheck");
        s->finished += s->sg[i].state == SUP_FINISHED;
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

/* A row about a whole group that the previous part of the same group has given already: each
 * part loads the kernel, so one that cannot load says so in every part (in words that may
 * differ: each build keeps its own log). One is kept. */
static int sched_said_before(const struct sched *s, const struct sup_group *sg, const struct rep_result *r)
{
    if (!r->group_row || sg->g->part <= 0 || sg->g->ordinal <= 0)
        return 0;
    const struct sup_group *prev = &s->sg[sg->g->ordinal - 1];
    for (int i = 0; i < prev->n_rows; i++)
        if (prev->rows[i].group_row && prev->rows[i].verdict == r->verdict &&
            prev->rows[i].cmp.classes == r->cmp.classes)
            return 1;
    return 0;
}

/* One row into the reports and the run's figures, printed when it is news. */
static void sched_add_result(struct run_ctx *cx, const struct rep_result *r, int backend_slot)
{
    rep_add(&cx->sink, r);
    cx->kernel_ms += r->kernel_ms;
    cx->first_launch_ms += r->first_launch_ms;
    cx->child_ms += r->child_ms;
    if (backend_slot >= 0) {
        cx->threads_by_backend[backend_slot] += r->threads;
        cx->kernel_ms_by_backend[backend_slot] += r->kernel_ms;
        cx->first_launch_ms_by_backend[backend_slot] += r->first_launch_ms;
    }
    if (cx->silent)
        return;
    if (!cx->o->quiet || verdict_fails_run(r->verdict) || r->verdict == V_SKIP)
        if (r->verdict != V_PASS)
            rep_print_line(stdout, r, &cx->sink.hdr);
    fflush(stdout);
}

/* Rows of sg from where its emission stopped; at --maxfail the run stops after that row. */
static void sched_emit_rows(struct sched *s, struct sup_group *sg)
{
    struct run_ctx *cx = s->cx;
    while (sg->emitted < sg->n_rows && !cx->stopped) {
        const struct rep_result *r = &sg->rows[sg->emitted++];
        if (sched_said_before(s, sg, r))
            continue;
        double t0 = now_ms();
        sched_add_result(cx, r, sg->g->slot);
        cx->report_ms += now_ms() - t0;
        s->failures += verdict_fails_run(r->verdict);
        if (cx->o->maxfail && s->failures >= cx->o->maxfail) {
            cx->stopped = 1;
            s->stopped_at = sg->g->ordinal;
        }
    }
}

/* The line after a group's rows; a cut group's after its last part, for all of them. */
static void sched_done_line(const struct sched *s, const struct sup_group *last)
{
    const struct group *g = last->g;
    int ran = 0;
    double started = last->started, ended = last->ended;
    for (int i = g->ordinal - (g->parts > 1 ? g->part : 0); i <= g->ordinal; i++) {
        ran += s->sg[i].ran;
        started = s->sg[i].started < started ? s->sg[i].started : started;
        ended = s->sg[i].ended > ended ? s->sg[i].ended : ended;
    }
    printf("  done    %s %s w%d %s/%s: %d cases in %.1f s%s\n", g->p->name, g->p->dev[g->device].name, g->width.width,
           g->k ? g->k->lang : "vendor", g->k ? g->k->name : g->p->vendor, ran, (ended - started) / 1e3,
           g->parts > 1 ? " (parts side by side)" : "");
    fflush(stdout);
}

void sched_emit(struct sched *s)
{
    while (s->emitted < s->n_groups && s->sg[s->emitted].state == SUP_FINISHED && !s->cx->stopped) {
        struct sup_group *sg = &s->sg[s->emitted];
        const struct group *g = sg->g;
        prog_clear();
        sched_header(g);
        sched_emit_rows(s, sg);
        if (!s->cx->o->quiet && g->n_cases && !s->cx->stopped && g->part == g->parts - 1)
            sched_done_line(s, sg);
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
    int skipped = 0, said = 0;
    for (int i = s->stopped_at; i < s->n_groups; i++) {
        struct sup_group *sg = &s->sg[i];
        int finished = i == s->stopped_at && sg->state == SUP_FINISHED && sg->emitted == sg->n_rows;
        int part_said = said && sg->g->part > 0; /* one row for the parts of a group */
        said = !finished;
        if (finished || part_said)
            continue; /* its failure was its last row; an earlier part of its group has the row */
        struct rep_result r;
        rows_group(&r, sg->g, V_SKIP, 0, why);
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
    else if (intr_signal)
        sched_finish_interrupted(s);
    for (int i = 0; i < s->n_groups; i++)
        sup_group_free(&s->sg[i]);
    free(s->sg), free(s->order), free(s->w);
    s->sg = NULL, s->order = NULL, s->w = NULL;
}
