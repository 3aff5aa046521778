/* SPDX-License-Identifier: MIT */
/* worker.c: the child side of the run. A worker serves one (backend, device, width): it opens
 * the backend and device once, then runs each group its parent sends (protocol.h), streaming
 * BEGIN, each launch's output, RESULT and DONE, keeping the context and a buffer pool between
 * cases and groups. It measures and sends what came back; the parent judges. After an API
 * error it exits, so a sticky device error cannot leak into the next case: the parent starts a
 * fresh worker there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_call.h"
#include "guard.h"
#include "protocol.h"
#include "runner.h"
#include "testbed.h"
#include "text.h"

/* Set by the parent just before it forks a worker: the fork's own cost shows as PH_START. */
double wk_spawned_at;

struct wk_state {
    struct run_ctx *cx;
    const struct group *groups;
    int n_groups;
    int fd, cmd_fd;
    pid_t self;
    double phase_ms[PH_COUNT], mark;
    struct bcall bk; /* the backend, through its door */
    int opened;      /* 1 open, -1 failed (open_rc, open_msg say how) */
    int open_rc;
    char open_msg[512];
    struct tb_pool pool;
    int group, index; /* the case running: its group's ordinal and its place in the group */
};

/* The time since the last mark goes to phase p. */
static void wk_phase(struct wk_state *w, enum msg_phase p)
{
    double now = now_ms();
    w->phase_ms[p] += now - w->mark;
    w->mark = now;
}

/* Sends m with the phase times since the last message. A copy of this process made by a
 * forking kernel is not the worker: it leaves without a word (no duplicate rows). */
static void wk_send(struct wk_state *w, struct msg *m)
{
    if (getpid() != w->self)
        _exit(0);
    memcpy(m->phase_ms, w->phase_ms, sizeof m->phase_ms);
    memset(w->phase_ms, 0, sizeof w->phase_ms);
    if (msg_send(w->fd, m))
        _exit(0); /* the parent is gone */
}

static void wk_simple(struct wk_state *w, const struct group *g, enum msg_type type, int index)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = type, m.group = g->ordinal, m.index = index;
    wk_send(w, &m);
}

static void wk_row(struct wk_state *w, const struct group *g, int rc, const char *why)
{
    struct msg m;
    msg_group(&m, g->ordinal, rc, why);
    wk_send(w, &m);
}

/* A launch's record and then its outputs, one after another, as the parent expects them
 * (testbed.h's `sent`). */
static void wk_launch_sent(void *arg, struct msg *m, const void *const outs[], const size_t bytes[], int n)
{
    struct wk_state *w = arg;
    m->group = w->group, m->index = w->index;
    wk_send(w, m);
    for (int i = 0; i < n; i++)
        if (child_write(w->fd, outs[i], bytes[i]))
            _exit(0); /* the parent is gone */
}

/* Loads the backend and opens the device, once per worker. */
static void wk_open(struct wk_state *w, const struct group *g)
{
    if (w->opened)
        return;
    const struct run_opts *o = w->cx->o;
    if (g->width.env[0])
        putenv(xstrdup(g->width.env));
    if (o->schedule)
        setenv("HB_SIM_SCHEDULE", o->schedule, 1);
    struct hb_err err = {{0}};
    w->opened = -1;
    w->open_rc = HB_ERROR;
    if (bcall_backend(&w->bk, g->p->name, &err)) {
        snprintf(w->open_msg, sizeof w->open_msg, "%.500s", err.msg);
    } else {
        w->open_rc = bcall_open(&w->bk, g->device, g->width.width, w->open_msg, sizeof w->open_msg);
        if (w->open_rc == HB_OK)
            w->opened = 1;
    }
    /* o->sanitize is the parent's: its sanitized child (o->group_child) has it stripped. */
    tb_pool_init(&w->pool, g->p->caps, o->sanitize || o->group_child);
    wk_phase(w, PH_OPEN);
}

/* The worker's group and itself, for the LOAD record. */
struct wk_loading {
    struct wk_state *w;
    const struct group *g;
};

/* Where kernels run in this process (the emulator), the kernel's code runs from its load on
 * (static constructors) and can write any record: the parent is told (LOAD) before the load
 * (bcall_load says when), after which it believes no SKIP of this worker. */
static void wk_announce_load(void *arg)
{
    const struct wk_loading *l = arg;
    wk_simple(l->w, l->g, MSG_LOAD, 0);
}

/* Runs group g from case `start` on; returns only when the worker may take another group. */
static void wk_run_group(struct wk_state *w, const struct group *g, int start)
{
    wk_open(w, g);
    if (w->opened < 0) {
        wk_row(w, g, w->open_rc, w->open_msg);
        return;
    }
    hb_kern *kern = NULL;
    if (g->k) {
        struct hb_kernel_spec spec;
        kern_spec(g->k, path_exe_dir(), &spec);
        struct wk_loading loading = {w, g};
        int rc = bcall_load(&w->bk, &spec, wk_announce_load, &loading, &kern);
        wk_phase(w, PH_LOAD);
        if (rc != HB_OK) {
            wk_row(w, g, rc, bcall_error(&w->bk));
            if (rc == HB_UNSUPPORTED)
                return;
            wk_simple(w, g, MSG_DONE, MSG_DONE_LEAVING);
            _exit(0); /* a failed load may leave the context unusable */
        }
    }
    struct tb_env env = {&w->bk, kern, &w->pool, w->cx->o->repeats, wk_launch_sent, w};
    for (int i = start; i < g->n_cases; i++) {
        wk_simple(w, g, MSG_BEGIN, i);
        const struct case_data *d = &w->cx->data[g->cases[i]];
        struct msg m;
        memset(&m, 0, sizeof m);
        m.type = MSG_RESULT, m.group = g->ordinal, m.index = i;
        w->group = g->ordinal, w->index = i;
        const char *origin = kern ? bcall_kernel_origin(&w->bk, kern) : NULL;
        if (origin)
            txt_copy(m.binary, sizeof m.binary, origin);
        double t0 = now_ms();
        w->mark = t0;
        int sticky = tb_run_case(&env, g->k, d, &m, w->phase_ms);
        m.child_ms = now_ms() - t0;
        w->mark = now_ms();
        wk_send(w, &m);
        if (sticky)
            _exit(0); /* a fresh worker gets a fresh device context */
    }
    if (kern)
        bcall_unload(&w->bk, kern);
}

static void wk_init(struct wk_state *w, struct run_ctx *cx, const struct group *groups, int n_groups, int fd)
{
    memset(w, 0, sizeof *w);
    w->cx = cx, w->groups = groups, w->n_groups = n_groups;
    w->fd = fd, w->cmd_fd = -1;
    w->self = getpid();
    w->mark = now_ms();
    if (wk_spawned_at > 0 && w->mark >= wk_spawned_at)
        w->phase_ms[PH_START] = w->mark - wk_spawned_at;
}

static void wk_exit(struct wk_state *w)
{
    if (w->opened > 0) {
        tb_pool_release(&w->bk, &w->pool);
        bcall_close(&w->bk);
    }
    _exit(0);
}

void wk_serve(struct run_ctx *cx, const struct group *groups, int n_groups, const struct wk_spawn *sp,
              const struct child_io *io)
{
    struct wk_state w;
    wk_init(&w, cx, groups, n_groups, io->result_fd);
    w.cmd_fd = io->cmd_fd;
    /* The device opens now, while the parent may still be busy elsewhere: a spare worker is
     * ready when its group needs it. (Under the sanitizer the tool's process opens it.) */
    if (!sp->sanitize_log && sp->open_for >= 0 && sp->open_for < n_groups)
        wk_open(&w, &groups[sp->open_for]);
    for (;;) {
        struct msg_cmd cmd;
        if (child_read(w.cmd_fd, &cmd, sizeof cmd, -1) != 1 || cmd.group < 0 || cmd.group >= n_groups ||
            cmd.start < 0 || cmd.start > groups[cmd.group].n_cases)
            wk_exit(&w);
        const struct group *g = &groups[cmd.group];
        w.mark = now_ms();
        if (sp->sanitize_log)
            san_exec(cx, g, cmd.start, w.fd, sp->sanitize_log);
        wk_run_group(&w, g, cmd.start);
        wk_simple(&w, g, MSG_DONE, 0);
        if (sp->one_group)
            wk_exit(&w);
    }
}

int wk_sanitized_child(struct run_ctx *cx, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    char backend[16], kernel[128];
    int device, width, start, ordinal, used = 0;
    const char *fd_text = getenv("HB_CHILD_FD");
    if (!fd_text ||
        sscanf(o->group_child, "%15[^:]:%d:%d:%127[^:]:%d:%d%n", backend, &device, &width, kernel, &start, &ordinal,
               &used) != 6 ||
        o->group_child[used]) {
        err_set(err, "--group-child %s: internal option, expected B:D:W:lang/kernel:start:group and HB_CHILD_FD",
                o->group_child);
        return EXIT_USAGE;
    }
    struct probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", backend);
    struct bcall bk;
    if (bcall_backend(&bk, backend, err))
        return EXIT_NO_DEVICE;
    p.count = bcall_list_devices(&bk, p.dev, MAX_DEVICES, p.err, sizeof p.err);
    struct group g;
    memset(&g, 0, sizeof g);
    g.p = &p, g.device = device, g.width.width = width, g.ordinal = ordinal;
    for (int i = 0; i < cx->kernels.n; i++) {
        char full[160];
        snprintf(full, sizeof full, "%s/%s", cx->kernels.k[i].lang, cx->kernels.k[i].name);
        if (!strcmp(full, kernel))
            g.k = &cx->kernels.k[i];
    }
    if (!g.k || device >= p.count) {
        err_set(err, "--group-child %s: no such kernel or device", o->group_child);
        return EXIT_USAGE;
    }
    /* Under compute-sanitizer: buffers of their exact size, so any access outside one, even
     * a read whose value is never used, is the tool's finding. */
    grd_set_exact();
    plan_select_cases(cx, g.k, NULL, 0);
    plan_prepare(cx, 1);
    plan_group_cases(cx, &g);
    struct wk_state w;
    wk_init(&w, cx, &g, 1, atoi(fd_text));
    wk_run_group(&w, &g, start);
    wk_simple(&w, &g, MSG_DONE, 0);
    wk_exit(&w);
    return EXIT_OK; /* not reached: wk_exit exits */
}
