/* supervise.c: the parent side of a group. Starts a child at the first case without a row,
 * reads its messages (each checked, protocol.h), and when the child dies or hangs writes the
 * row for the case in flight (killed after the timeout) and starts a fresh child at the next
 * case. A canary caught by its crash or hang is not run further: it would only repeat. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "text.h"
#include "child.h"
#include "protocol.h"
#include "runner.h"

/* Open and kernel load (glslc, JIT, driver start) get this long before the first case. */
#define SUP_OPEN_TIMEOUT_MS 120000

volatile sig_atomic_t sup_interrupted;

struct sup_state {
    const struct group *g;
    int next;            /* first case without a row */
    int ran, passed, caught, stop;
};

/* How one child ended. */
struct sup_end {
    int in_flight;       /* case begun without a result, -1 none */
    int progressed, timed_out, status;
    double case_start;
    char bad_message[256]; /* a malformed message: the child is not trusted further */
};

struct sup_spawn_arg {
    struct run_ctx *cx;
    const struct group *g;
    int start;
    const char *log;
};

static void sup_child_body(void *arg, int fd)
{
    struct sup_spawn_arg *a = arg;
    if (a->cx->o->sanitize)
        san_exec(a->cx, a->g, a->start, fd, a->log);
    wk_group_child(a->cx, a->g, a->start, fd);
}

static void sup_count(struct sup_state *st, const struct rep_result *r)
{
    st->ran++;
    st->passed += r->verdict == V_PASS;
    st->caught |= r->verdict == V_XFAIL;
}

/* Reads one child's messages until it ends, hangs or is interrupted. */
static void sup_follow(struct run_ctx *cx, struct sup_state *st, struct child *ch, struct sup_end *end)
{
    const struct group *g = st->g;
    double timeout_s = g->k && g->k->timeout_s ? (double)g->k->timeout_s : cx->o->timeout_s;
    end->in_flight = -1;
    end->case_start = now_ms();
    for (;;) {
        struct msg m;
        struct hb_err err = {{0}};
        int rc = msg_recv(ch->fd, &m, end->in_flight < 0 ? SUP_OPEN_TIMEOUT_MS : (int)(timeout_s * 1000), g->n_cases,
                          &err);
        if (rc == -1)
            end->timed_out = 1;
        if (rc == -3)
            snprintf(end->bad_message, sizeof end->bad_message, "%.200s", err.msg);
        if (rc == -1 || rc == -3 || (rc == -2 && sup_interrupted)) {
            child_kill(ch);
            st->stop |= rc == -2;
            return;
        }
        if (rc != 1)
            return;
        if (m.type == MSG_BEGIN) {
            end->in_flight = m.index;
            end->case_start = now_ms();
            continue;
        }
        run_add_result(cx, &m.r, g->slot);
        end->progressed = 1;
        if (m.type == MSG_GROUP) {
            st->stop = 1;
            continue;
        }
        sup_count(st, &m.r);
        end->in_flight = -1;
        st->next = m.index + 1;
    }
}

/* The tool's findings for one sanitized child: a race or a bad access is a verdict. */
static void sup_sanitizer_row(struct run_ctx *cx, struct sup_state *st, const char *log)
{
    const struct group *g = st->g;
    char summary[256];
    long findings = san_findings(log, summary, sizeof summary);
    if (!findings)
        return;
    struct rep_result r;
    run_fill_identity(&r, g);
    r.group_row = 1;
    snprintf(r.case_name, sizeof r.case_name, "%s", cx->o->sanitize);
    r.cmp.classes = findings < 0 ? CLS_API : !strcmp(cx->o->sanitize, "racecheck") ? CLS_NONDET : CLS_OOB;
    char verdict_why[256];
    r.verdict = verdict_case(&r.cmp, kern_expected_bad(g->k, g->width.width), g->k->expect, 0, NULL, verdict_why,
                             sizeof verdict_why);
    snprintf(r.why, sizeof r.why, "compute-sanitizer %s: %.120s; %.100s", cx->o->sanitize,
             findings < 0 ? "no summary in its log" : summary, verdict_why);
    run_add_result(cx, &r, g->slot);
    st->caught |= r.verdict == V_XFAIL;
}

/* Why a child ended without finishing, as a class and words; 0 when it ended cleanly after
 * an API error and a fresh child should take the next case. */
static unsigned sup_why(const struct sup_end *end, double timeout_s, char *why, size_t len)
{
    if (end->bad_message[0]) {
        snprintf(why, len, "child sent a malformed message (%.150s): killed", end->bad_message);
        return CLS_CRASH;
    }
    if (end->timed_out) {
        snprintf(why, len, "no answer in %.0f s: killed", end->in_flight < 0 ? SUP_OPEN_TIMEOUT_MS / 1e3 : timeout_s);
        return CLS_TIMEOUT;
    }
    if (WIFSIGNALED(end->status)) {
        const char *name = strsignal(WTERMSIG(end->status));
        snprintf(why, len, "child died: %s (signal %d)", name ? name : "signal", WTERMSIG(end->status));
        return CLS_CRASH;
    }
    if (end->in_flight < 0) {
        if (end->progressed)
            return 0;
        snprintf(why, len, "child exited with status %d before its first case", WEXITSTATUS(end->status));
        return CLS_API;
    }
    snprintf(why, len, "child exited with status %d mid-case", WEXITSTATUS(end->status));
    return CLS_CRASH;
}

/* Writes the row for a child that died or hung; returns whether the group stops there. */
static int sup_child_lost(struct run_ctx *cx, struct sup_state *st, const struct sup_end *end)
{
    const struct group *g = st->g;
    double timeout_s = g->k && g->k->timeout_s ? (double)g->k->timeout_s : cx->o->timeout_s;
    char why[256];
    unsigned cls = sup_why(end, timeout_s, why, sizeof why);
    if (!cls)
        return 0;
    struct rep_result r;
    run_fill_identity(&r, g);
    r.cmp.classes = cls;
    if (end->in_flight < 0) {
        /* Died before any case: the whole group is unusable. */
        r.group_row = 1;
        snprintf(r.case_name, sizeof r.case_name, "*");
        snprintf(r.why, sizeof r.why, "%s", why);
        r.verdict = V_ERROR;
        run_add_result(cx, &r, g->slot);
        return 1;
    }
    run_fill_case(&r, cx->data[g->cases[end->in_flight]].c);
    r.child_ms = now_ms() - end->case_start;
    char verdict_why[256];
    r.verdict = verdict_case(&r.cmp, g->k ? kern_expected_bad(g->k, g->width.width) : 0, g->k ? g->k->expect : 0,
                             0, NULL, verdict_why, sizeof verdict_why);
    txt_printf(r.why, sizeof r.why, "%s; %s", why, verdict_why);
    run_add_result(cx, &r, g->slot);
    sup_count(st, &r);
    st->next = end->in_flight + 1;
    /* A canary that crashed or hung as it should has been caught. */
    return r.verdict == V_XFAIL;
}

/* A sanitizer log nobody else can have planted: a fresh name made by mkstemp. */
static int sup_sanitizer_log(char *log, size_t len)
{
    snprintf(log, len, "%s/hb-sanitize-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(log);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* One child from st->next on; returns whether the group goes on with another. */
static int sup_one_child(struct run_ctx *cx, struct sup_state *st)
{
    char log[4096] = "";
    struct hb_err err = {{0}};
    if (cx->o->sanitize && sup_sanitizer_log(log, sizeof log)) {
        fprintf(stderr, "harness: sanitizer log: %s\n", strerror(errno));
        return 0;
    }
    struct sup_spawn_arg arg = {cx, st->g, st->next, log};
    struct child ch;
    if (child_spawn(&ch, sup_child_body, &arg, &err)) {
        fprintf(stderr, "harness: %s\n", err.msg);
        return 0;
    }
    struct sup_end end;
    memset(&end, 0, sizeof end);
    sup_follow(cx, st, &ch, &end);
    end.status = child_reap(&ch);
    if (log[0]) {
        sup_sanitizer_row(cx, st, log);
        unlink(log);
    }
    if (st->stop || st->next >= st->g->n_cases)
        return 0;
    return !sup_child_lost(cx, st, &end);
}

void sup_run_group(struct run_ctx *cx, const struct group *g)
{
    struct sup_state st;
    memset(&st, 0, sizeof st);
    st.g = g;
    double t_group = now_ms();
    while (st.next < g->n_cases && !st.stop && sup_one_child(cx, &st))
        ;
    int expected_bad = g->k ? kern_expected_bad(g->k, g->width.width) : 0;
    if (expected_bad && !st.caught && verdict_group_xpass(st.ran, st.passed) && !sup_interrupted) {
        struct rep_result r;
        run_fill_identity(&r, g);
        r.group_row = 1;
        snprintf(r.case_name, sizeof r.case_name, "*");
        r.verdict = V_XPASS;
        char wanted[128];
        class_names(g->k->expect, wanted, sizeof wanted);
        snprintf(r.why, sizeof r.why, "known-bad kernel passed every case at width %d: the harness missed %s",
                 g->width.width, g->k->expect ? wanted : "its width bug");
        run_add_result(cx, &r, g->slot);
    }
    if (!cx->o->quiet) {
        printf("  done    %s %s w%d %s/%s: %d cases in %.1f s\n", g->p->name, g->p->dev[g->device].name,
               g->width.width, g->k ? g->k->lang : "vendor", g->k ? g->k->name : g->p->vendor, st.ran,
               (now_ms() - t_group) / 1e3);
        fflush(stdout);
    }
}
