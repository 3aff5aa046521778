/* SPDX-License-Identifier: MIT */
/* scheduler.h: the scheduler's state, shared by its three files: sched.c (workers: start,
 * assign, watch, reap), sched_read.c (their records and outputs, checked) and sched_emit.c
 * (rows out in group order, --maxfail, the status line, the end of the run). Not for the rest
 * of the core: runner.h has sched_run. */
#ifndef HB_SCHED_H
#define HB_SCHED_H

#include "runner.h"

#define SCHED_MAX_WORKERS 256

struct sched {
    struct run_ctx *cx;
    struct group *groups;
    int n_groups;
    struct sup_group *sg; /* one per group, by ordinal */
    int *order;           /* ordinals, longest first */
    int emitted;          /* groups whose rows are out, a prefix of the ordinals */
    int finished;         /* groups finished, in any order */
    double total_cost, done_cost;
    long results, failures;
    int stopped_at;       /* the group in which --maxfail was reached, -1 none */
    struct sup_worker *w; /* cx->jobs of them */
    int n_workers;
    int waiting_data;    /* a pending group waits for its cases' data: poll often */
    char spawn_err[512]; /* why the last worker could not start (fork, pipe, sanitizer log) */
};

void sched_init(struct sched *s, struct run_ctx *cx, struct group *groups, int n_groups);
/* The parent's own time handling records (reading outputs of up to GiBs, comparing them) is
 * no worker's: each waits for it, blocked sending its next launch, so every running deadline
 * moves on by parent_ms (generous by at most that for one whose case began meanwhile). */
void sched_excuse(struct sched *s, double parent_ms);
/* Reads what w has sent, up to its next record: 1 with it in *m, checked (a LAUNCH once its
 * output is read whole), 0 when nothing more is there now; a worker that sends anything else is
 * killed (w->bad_message says why). sched.c handles each record it returns. */
int sched_read_record(struct sched *s, struct sup_worker *w, struct msg *m);
/* What a worker prints: kept while it works, passed to stderr when its work ended well
 * (sched_emit.c). */
void sched_keep_output(struct sup_worker *w, const char *text, size_t n);
void sched_pass_output(struct sup_worker *w);
void sched_read_output(struct sup_worker *w);
/* The worker ran sg to its end (DONE, or its end after a lost case): finished, or back in
 * the queue from sg->next when cases are left. */
void sched_group_done(struct sched *s, struct sup_group *sg);
/* Emits every finished group whose predecessors are all out; stops at --maxfail. */
void sched_emit(struct sched *s);
void sched_progress(const struct sched *s);
/* After the loop: what an interrupted or stopped run still owes its reports. */
void sched_finish(struct sched *s);

#endif
