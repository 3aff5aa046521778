/* SPDX-License-Identifier: MIT */
/* sched.c: runs a run's groups in worker children, up to cx->jobs at once, longest first, each
 * once its cases' data is made (what they send is read in sched_read.c). A worker serves one (backend, device, width),
 * group after group, until it dies or hangs (a fresh one takes the rest); plan_reuses_workers (parts.c) says where each
 * group gets its own. Workers share a device while their largest buffers fit its memory, 8 at most; rows wait until
 * every earlier group is out (sched_emit.c), so the reports do not depend on the job count. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"
#include "rows.h"
#include "scheduler.h"
#include "trace.h"

/* A device's memory that workers may plan on, and what each context costs beyond its buffers. */
#define SCHED_DEVICE_SHARE 0.9
#define SCHED_CONTEXT_BYTES (512.0 * 1048576.0)
/* After a worker's pipe closes, how long it has to exit before it is killed; and the longest
 * poll, so exits are seen even while every pipe is quiet. */
#define SCHED_EXIT_GRACE_MS 2000
#define SCHED_TICK_MS 200
/* ... and while a worker whose pipe has closed is not yet reaped: it is exiting, and no pipe
 * announces the exit itself (waiting out a tick held the slot of each fresh worker ~200 ms). */
#define SCHED_EXIT_TICK_MS 1
/* ... and while a group waits for its cases' data, which no pipe announces. */
#define SCHED_DATA_TICK_MS 5
/* The result pipe's capacity asked for (Linux's default limit for an unprivileged process). */
#define SCHED_PIPE_BYTES (1 << 20)
/* Spare workers opening their device ahead of a group that needs a fresh one per case. */
#define SCHED_SPARES 4
/* Workers sharing one device (the emulator aside). A driver makes one process's context at a
 * time: on the H200 the standard tier took 7.6 s with 4 workers, 7.4 s with 8, 9.8 s with 16
 * and 9.5 s with 24, while the summed device opens grew 3 s, 10 s, 53 s, 74 s. */
#define SCHED_WORKERS_PER_DEVICE 8

/* Bytes a worker running g holds on its device. */
static double sched_need(const struct group *g)
{
    return g->bytes + (g->p->caps & HB_CAP_IN_PROCESS ? 0 : SCHED_CONTEXT_BYTES);
}

/* Workers on g's device, idle ones included. */
static int sched_on_device(const struct sched *s, const struct group *g)
{
    int n = 0;
    for (int i = 0; i < s->n_workers; i++)
        n += s->w[i].kind->slot == g->slot && s->w[i].kind->device == g->device;
    return n;
}

/* Whether g fits beside the workers already on its device (one always fits); an idle worker
 * holds its context, except `taker`, the idle one that would run g. */
static int sched_fits(const struct sched *s, const struct group *g, const struct sup_worker *taker)
{
    double used = 0, have = (double)g->p->dev[g->device].global_mem_bytes;
    int others = 0;
    for (int i = 0; i < s->n_workers; i++) {
        const struct sup_worker *w = &s->w[i];
        if (w == taker || w->kind->slot != g->slot || w->kind->device != g->device)
            continue;
        used += w->group >= 0 ? sched_need(s->sg[w->group].g) : sched_need(w->kind) - w->kind->bytes;
        others++;
    }
    return !others || have <= 0 || used + sched_need(g) <= SCHED_DEVICE_SHARE * have;
}

struct sched_body_arg {
    struct sched *s;
    struct wk_spawn sp;
};

static void sched_worker_body(void *arg, const struct child_io *io)
{
    struct sched_body_arg *a = arg;
    wk_serve(a->s->cx, a->s->groups, a->s->n_groups, &a->sp, io);
}

/* A sanitizer log nobody else can have planted: a fresh name made by mkstemp. */
static int sched_sanitizer_log(char *log, size_t len)
{
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(log, len, "%s/hb-sanitize-XXXXXX", tmp);
    int fd = mkstemp(log);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* The limit a failed fork or pipe ran into, for the message: none of the harness's own. */
static const char *sched_limit_hint(int err)
{
    return err == EAGAIN   ? " (ulimit -u? the processes this user may have)"
           : err == EMFILE ? " (ulimit -n? the files a process may have open)"
           : err == ENFILE ? " (the system's table of open files is full)"
           : err == ENOMEM ? " (out of memory)"
                           : "";
}

/* A new worker for g's key; NULL when none could start (s->spawn_err says why). */
static struct sup_worker *sched_spawn(struct sched *s, const struct group *g)
{
    struct sup_worker *w = &s->w[s->n_workers];
    memset(w, 0, sizeof *w);
    w->group = -1, w->in_flight = -1, w->key = g->key, w->kind = g;
    struct sched_body_arg arg = {s, {NULL, !plan_reuses_workers(s->cx->o, g), g->ordinal}};
    if (s->cx->o->sanitize) {
        if (sched_sanitizer_log(w->log, sizeof w->log)) {
            snprintf(s->spawn_err, sizeof s->spawn_err, "sanitizer log: %s", strerror(errno));
            return NULL;
        }
        arg.sp.sanitize_log = w->log;
    }
    struct child_opts opts = {1, 1};
    struct hb_err err = {{0}};
    w->born = wk_spawned_at = now_ms();
    if (child_start(&w->ch, &opts, sched_worker_body, &arg, &err)) {
        const char *hint = sched_limit_hint(errno);
        snprintf(s->spawn_err, sizeof s->spawn_err, "%.400s%s", err.msg, hint);
        if (w->log[0])
            unlink(w->log);
        return NULL;
    }
    fcntl(w->ch.fd, F_SETFL, O_NONBLOCK);
    /* Outputs come through it whole: a larger pipe takes a big case's in fewer wake-ups. */
    fcntl(w->ch.fd, F_SETPIPE_SZ, SCHED_PIPE_BYTES);
    fcntl(w->ch.out_fd, F_SETFL, O_NONBLOCK);
    trace_track((int)w->ch.pid, "worker %d: %s device %d, width %d", (int)w->ch.pid, g->p->name, g->device,
                g->width.width);
    s->n_workers++;
    return w;
}

/* Sends sg to w; 0, or -1 when w is gone already (it is killed, sg stays pending). */
static int sched_assign(struct sched *s, struct sup_worker *w, struct sup_group *sg)
{
    struct msg_cmd cmd = {sg->g->ordinal, sg->next};
    if (child_write(w->ch.cmd_fd, &cmd, sizeof cmd)) {
        child_kill(&w->ch);
        w->killed = 1;
        return -1;
    }
    w->group = sg->g->ordinal;
    w->assigned = now_ms();
    sup_turn_start(w, sg);
    w->deadline = now_ms() + s->cx->o->timeout_s * 1000; /* device open and kernel load */
    if (!sg->started)
        sg->started = now_ms();
    if (!s->cx->first_group_ms)
        s->cx->first_group_ms = sg->started;
    sg->state = SUP_RUNNING;
    return 0;
}

/* For --trace: the span of w's turn at sg, up to the case it reached. */
static void sched_trace_turn(const struct sup_worker *w, const struct sup_group *sg)
{
    if (!trace_on())
        return;
    const struct group *g = sg->g;
    char name[200], detail[120];
    snprintf(name, sizeof name, "%s/%s", g->k ? g->k->lang : "vendor", g->k ? g->k->name : g->p->vendor);
    snprintf(detail, sizeof detail, "part %d of %d: up to case %d of %d", g->part + 1, g->parts ? g->parts : 1,
             sg->next, g->n_cases);
    trace_span((int)w->ch.pid, "group", name, detail, w->assigned, now_ms());
}

/* Tells an idle worker to go: it closes its device and exits, or is killed after the timeout
 * (one stuck opening its device, or closing it). */
static void sched_retire(struct sched *s, struct sup_worker *w)
{
    if (w->ch.cmd_fd < 0)
        return;
    close(w->ch.cmd_fd);
    w->ch.cmd_fd = -1;
    w->deadline = now_ms() + s->cx->o->timeout_s * 1000;
}

static struct sup_worker *sched_idle(struct sched *s, int key)
{
    for (int i = 0; i < s->n_workers; i++)
        if (s->w[i].group < 0 && s->w[i].ch.cmd_fd >= 0 && !s->w[i].killed && (key < 0 || s->w[i].key == key))
            return &s->w[i];
    return NULL;
}

static int sched_busy(const struct sched *s)
{
    int n = 0;
    for (int i = 0; i < s->n_workers; i++)
        n += s->w[i].group >= 0;
    return n;
}

/* Whether every case of sg has its data (threads make it while the run starts), once true
 * remembered. */
static int sched_data_ready(struct sched *s, struct sup_group *sg)
{
    for (int i = 0; !sg->data_ready && i < sg->g->n_cases; i++)
        if (!atomic_load_explicit(&s->cx->data[sg->g->cases[i]].ready, memory_order_acquire))
            return s->waiting_data = 1, 0;
    return sg->data_ready = 1;
}

/* No worker could start for sg. While other workers live, their exits free what the fork or pipe
 * lacked (processes, descriptors): an idle one is retired and sg waits. With none left, nothing
 * will free it: sg ends as an ERROR row naming the failure (the run goes on, exit 1), never a
 * silent gap in the reports. */
static void sched_no_worker(struct sched *s, struct sup_group *sg)
{
    if (s->n_workers) {
        struct sup_worker *other = sched_idle(s, -1);
        if (other)
            sched_retire(s, other);
        return;
    }
    char why[640];
    snprintf(why, sizeof why, "no worker could start for this group: %s", s->spawn_err);
    fprintf(stderr, "harness: %s\n", why);
    struct rep_result r;
    rows_group(&r, sg->g, V_ERROR, 0, why);
    sup_push_row(sg, &r);
    sg->stop = 1;
    sched_group_done(s, sg);
}

/* Places the pending group `sg` if it can go now: 1 placed, 0 not now. */
static int sched_place(struct sched *s, struct sup_group *sg)
{
    const struct group *g = sg->g;
    if (!sched_data_ready(s, sg))
        return 0;
    struct sup_worker *w = plan_reuses_workers(s->cx->o, g) ? sched_idle(s, g->key) : NULL;
    if (!w && atomic_load(&s->cx->unmade) > 0)
        return 0; /* a new worker waits: no fork while threads make case data (runner.h) */
    int fits = sched_fits(s, g, w);
    int crowded = !w && !(g->p->caps & HB_CAP_IN_PROCESS) && sched_on_device(s, g) >= SCHED_WORKERS_PER_DEVICE;
    if (!fits || crowded || (!w && s->n_workers >= s->cx->jobs)) {
        struct sup_worker *other = sched_idle(s, -1);
        if (other)
            sched_retire(s, other); /* its slot and its device memory free when it has exited */
        return 0;
    }
    if (!w && !(w = sched_spawn(s, g)))
        return sched_no_worker(s, sg), 0;
    return sched_assign(s, w, sg) == 0;
}

/* Whether a group of this key waits for a worker, or runs in a chain of fresh workers (one
 * per case, after sticky errors or crashes) that spares can take over at once. */
static int sched_key_wanted(const struct sched *s, int key)
{
    for (int k = 0; k < s->n_groups; k++) {
        const struct sup_group *sg = &s->sg[k];
        if (sg->g->key == key && plan_reuses_workers(s->cx->o, sg->g) &&
            (sg->state == SUP_PENDING || (sg->state == SUP_RUNNING && sg->restarts)))
            return 1;
    }
    return 0;
}

/* For a group that has lost workers mid-group, a few spare workers of its key open their
 * device while it runs, so the next fresh worker it needs is ready: device contexts are made
 * side by side instead of one per case in a row. */
static void sched_spares(struct sched *s)
{
    for (int k = 0; k < s->n_groups; k++) {
        const struct sup_group *sg = &s->sg[k];
        if (sg->state != SUP_RUNNING || !sg->restarts || !plan_reuses_workers(s->cx->o, sg->g) ||
            sg->g->n_cases - sg->next < 2)
            continue;
        int idle = 0;
        for (int i = 0; i < s->n_workers; i++)
            idle += s->w[i].group < 0 && s->w[i].key == sg->g->key && s->w[i].ch.cmd_fd >= 0;
        while (idle++ < SCHED_SPARES && !atomic_load(&s->cx->unmade) && s->n_workers < s->cx->jobs &&
               sched_fits(s, sg->g, NULL) && sched_on_device(s, sg->g) < SCHED_WORKERS_PER_DEVICE &&
               sched_spawn(s, sg->g))
            ;
    }
}

/* Starts pending groups, longest first, while workers are free; keeps spares for chains;
 * retires idle workers whose key has nothing left. */
static void sched_fill(struct sched *s)
{
    s->waiting_data = 0;
    for (int i = 0; i < s->n_groups && sched_busy(s) < s->cx->jobs; i++) {
        struct sup_group *sg = &s->sg[s->order[i]];
        if (sg->state == SUP_PENDING)
            sched_place(s, sg);
    }
    sched_spares(s);
    for (int i = 0; i < s->n_workers; i++)
        if (s->w[i].group < 0 && !sched_key_wanted(s, s->w[i].key))
            sched_retire(s, &s->w[i]);
}

/* A checked record of w's group: to supervise.c, and the group's end. */
static void sched_handle(struct sched *s, struct sup_worker *w, const struct msg *m)
{
    struct sup_group *sg = &s->sg[w->group];
    /* Not at a BEGIN, LAUNCH or LOAD: what it prints next (a crash's words) is its row's. */
    if (m->type != MSG_BEGIN && m->type != MSG_LAUNCH && m->type != MSG_LOAD)
        sched_pass_output(w);
    s->results += m->type == MSG_RESULT;
    sup_message(s->cx, sg, w, m);
    if (m->type == MSG_DONE && !w->log[0]) {
        sched_trace_turn(w, sg);
        sched_group_done(s, sg);
        if (m->index == MSG_DONE_LEAVING)
            sched_retire(s, w); /* it is exiting: a group sent now would be lost */
    } else if (m->type == MSG_DONE) {
        /* Sanitized: the findings come when the tool exits, which it does now. */
        w->group = sg->g->ordinal;
        w->deadline = now_ms() + s->cx->o->timeout_s * 1000;
    }
}

/* Every child that has exited: a worker is marked, and what is left of its group (a kernel's
 * forked children) is killed; anything else is an orphan of a worker's group that this
 * process, its subreaper, inherited, and is only reaped. */
static void sched_reap_exits(struct sched *s, double now)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        for (int i = 0; i < s->n_workers; i++) {
            struct sup_worker *w = &s->w[i];
            if (w->ch.pid != pid || w->exited)
                continue;
            w->exited = 1, w->exited_at = now, w->status = status;
            kill(-pid, SIGKILL);
        }
}

/* Timeouts: a worker past its deadline is killed with its whole group, and one whose pipe
 * closed long ago without exiting is killed. */
static void sched_watch(struct sup_worker *w, double now)
{
    if (w->deadline > 0 && now > w->deadline && !w->killed) {
        w->timed_out = 1, w->killed = 1;
        child_kill(&w->ch);
    }
    if (w->eof && !w->exited && !w->killed && now - w->eof_at > SCHED_EXIT_GRACE_MS) {
        w->killed = 1;
        child_kill(&w->ch);
    }
}

/* A worker that has exited and whose pipe is closed: its group's rows, then its slot. */
static void sched_reap(struct sched *s, int i)
{
    struct sup_worker *w = &s->w[i];
    sched_read_output(w);
    if (w->group >= 0 && !intr_signal && !s->cx->stopped) {
        struct sup_group *sg = &s->sg[w->group];
        int rows = sg->n_rows;
        sup_sanitized_end(s->cx, sg, w->log, w->first_row);
        sched_trace_turn(w, sg);
        if (sup_worker_lost(s->cx, sg, w))
            sg->state = SUP_PENDING, sg->restarts++;
        else
            sched_group_done(s, sg);
        /* A crash or hang row holds the telling line of what it printed: the rest is not
         * left loose on the terminal. */
        if (sg->n_rows > rows)
            w->out_len = w->dropped = 0;
    }
    sched_pass_output(w);
    vfy_free(&w->check);
    if (w->log[0])
        unlink(w->log);
    child_close_pipes(&w->ch);
    s->cx->busy_ms += now_ms() - w->born;
    trace_span((int)w->ch.pid, "worker", "worker", "from fork to exit: device open, groups, idle, close", w->born,
               now_ms());
    s->w[i] = s->w[--s->n_workers];
}

void sched_excuse(struct sched *s, double parent_ms)
{
    for (int i = 0; i < s->n_workers; i++)
        if (s->w[i].deadline > 0)
            s->w[i].deadline += parent_ms;
}

static int sched_poll_timeout(const struct sched *s, double now)
{
    double t = s->waiting_data ? SCHED_DATA_TICK_MS : SCHED_TICK_MS;
    for (int i = 0; i < s->n_workers; i++) {
        if (s->w[i].deadline > 0 && s->w[i].deadline - now < t)
            t = s->w[i].deadline - now;
        if (s->w[i].eof && !s->w[i].exited && t > SCHED_EXIT_TICK_MS)
            t = SCHED_EXIT_TICK_MS;
    }
    return t < 1 ? 1 : (int)t;
}

/* Waits for anything from any worker and handles it. */
static void sched_wait(struct sched *s)
{
    struct pollfd pfd[2 * SCHED_MAX_WORKERS];
    int n = 0;
    for (int i = 0; i < s->n_workers; i++) {
        pfd[n++] = (struct pollfd){s->w[i].ch.fd, POLLIN, 0};
        pfd[n++] = (struct pollfd){s->w[i].ch.out_fd, POLLIN, 0};
    }
    if (poll(pfd, (nfds_t)n, sched_poll_timeout(s, now_ms())) < 0 && errno != EINTR)
        return;
    double handling = now_ms();
    for (int i = 0; i < s->n_workers; i++) {
        sched_read_output(&s->w[i]);
        struct msg m;
        while (sched_read_record(s, &s->w[i], &m))
            sched_handle(s, &s->w[i], &m);
    }
    double now = now_ms();
    sched_excuse(s, now - handling);
    sched_reap_exits(s, now);
    for (int i = s->n_workers - 1; i >= 0; i--) {
        struct sup_worker *w = &s->w[i];
        sched_watch(w, now);
        /* An exited worker's pipe closes once its leftovers are killed; one that something
         * outside its group holds open is given up after the grace period. */
        if (w->exited && (w->eof || now - w->exited_at > SCHED_EXIT_GRACE_MS))
            sched_reap(s, i);
    }
}

/* At the end (or interrupted, or stopped): every worker and what it started goes, now, and
 * the orphans inherited meanwhile are reaped. */
static void sched_kill_all(struct sched *s)
{
    for (int i = 0; i < s->n_workers; i++) {
        struct sup_worker *w = &s->w[i];
        child_kill(&w->ch);
        if (w->exited)
            w->ch.pid = -1; /* reaped already */
        child_reap(&w->ch);
        vfy_free(&w->check);
        if (w->log[0])
            unlink(w->log);
        s->cx->busy_ms += now_ms() - w->born;
    }
    s->n_workers = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

/* A worker for each of the first groups, longest first, whose key reuses workers, up to the
 * job and per-device limits: each opens its device now, while the parent makes references. */
static void sched_early(struct sched *s)
{
    for (int i = 0; i < s->n_groups && s->n_workers < s->cx->jobs; i++) {
        const struct group *g = s->sg[s->order[i]].g;
        if (s->sg[s->order[i]].state == SUP_PENDING && plan_reuses_workers(s->cx->o, g) && sched_fits(s, g, NULL) &&
            sched_on_device(s, g) < SCHED_WORKERS_PER_DEVICE && !sched_spawn(s, g))
            break;
    }
}

struct sched *sched_start(struct run_ctx *cx, struct group *groups, int n_groups, int early)
{
    struct sched *s = xcalloc(1, sizeof *s);
    sched_init(s, cx, groups, n_groups);
    signal(SIGPIPE, SIG_IGN);
    /* A worker's descendants that outlive it (a kernel's fork) become this process's
     * children, so they are reaped here rather than left as zombies. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (early)
        sched_early(s);
    return s;
}

void sched_run(struct sched *s)
{
    struct run_ctx *cx = s->cx;
    while (!intr_signal && !cx->stopped && (s->emitted < s->n_groups || s->n_workers)) {
        sched_fill(s);
        sched_wait(s);
        sched_emit(s);
        sched_progress(s);
    }
    sched_kill_all(s);
    sched_finish(s);
    free(s);
}
