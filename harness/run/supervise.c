/* SPDX-License-Identifier: MIT */
/* supervise.c: the parent's side of a group. Each checked record of its worker becomes rows
 * (identity and case fields the parent's own, figures made from the outputs it sent by
 * verify.c, every verdict judged here), kept until sched_emit.c emits them in group order; a
 * worker that dies or hangs costs a row for its case in flight with its last telling line of
 * output. A canary caught by its crash or hang is not run further. It starts and kills no
 * process itself (sched.c does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "interrupt.h"
#include "rows.h"
#include "runner.h"
#include "text.h"

void sup_group_init(struct sup_group *s, struct group *g)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->state = SUP_PENDING;
}

void sup_group_free(struct sup_group *s)
{
    free(s->rows);
    s->rows = NULL;
    s->n_rows = s->cap_rows = 0;
}

void sup_push_row(struct sup_group *s, const struct rep_result *r)
{
    s->rows = xgrow(s->rows, s->n_rows, &s->cap_rows, sizeof *s->rows);
    s->rows[s->n_rows++] = *r;
    s->failing += verdict_fails_run(r->verdict);
}

double sup_case_timeout_s(const struct run_ctx *cx, const struct group *g)
{
    return g->k && g->k->timeout_s ? (double)g->k->timeout_s : cx->o->timeout_s;
}

static void sup_count(struct sup_group *s, const struct rep_result *r)
{
    s->ran++;
    s->passed += r->verdict == V_PASS;
    s->caught |= r->verdict == V_XFAIL;
}

/* The verdict of row r of group g, its reason in verdict_why. */
static enum hb_verdict sup_verdict(const struct run_ctx *cx, const struct group *g, const struct rep_result *r,
                                   char *verdict_why, size_t len)
{
    char kernel_name[160];
    snprintf(kernel_name, sizeof kernel_name, "%s/%s", r->lang, r->kernel);
    const struct known_bug *bug = known_match(&cx->known, r->backend, r->device, r->width, kernel_name, r->case_name);
    int expected_bad = g->k ? kern_expected_bad(g->k, g->width.width) : 0;
    unsigned allowed = g->k && g->k->nondeterministic ? CLS_NONDET : 0;
    return verdict_case(&r->cmp, expected_bad, g->k ? g->k->expect : 0, allowed, bug, verdict_why, (unsigned)len);
}

/* The row's verdict and reason, any API message first. */
static void sup_judge(const struct run_ctx *cx, const struct group *g, struct rep_result *r)
{
    char verdict_why[256];
    r->verdict = sup_verdict(cx, g, r, verdict_why, sizeof verdict_why);
    if (r->why[0] && verdict_why[0]) {
        char api_why[sizeof r->why];
        memcpy(api_why, r->why, sizeof api_why);
        txt_printf(r->why, sizeof r->why, "%s; %s", api_why, verdict_why);
    } else if (!r->why[0]) {
        txt_copy(r->why, sizeof r->why, verdict_why);
    }
}

void sup_turn_start(struct sup_worker *w, const struct sup_group *s)
{
    w->in_flight = -1, w->progressed = w->said_group = w->heard = 0, w->first_row = s->n_rows;
}

/* Whether a BEGIN, LAUNCH or RESULT is due: a case begins only after the last one has its row,
 * its launches come in order, as many as the run asks for, and its result says how many came
 * (fewer only after a failed call). */
static int sup_case_due(const struct run_ctx *cx, const struct sup_group *s, const struct sup_worker *w,
                        const struct msg *m, struct hb_err *err)
{
    int repeats = cx->o->repeats, launches = w->check.launches;
    if (m->type == MSG_BEGIN && w->said_group)
        return err_set(err, "case %d begun in a group that could not run", m->index), 0;
    if (m->type == MSG_BEGIN && (w->in_flight >= 0 || m->index != s->next))
        return err_set(err, "case %d begun while case %d was due", m->index,
                       w->in_flight >= 0 ? w->in_flight : s->next),
               0;
    if (m->type != MSG_BEGIN && m->index != w->in_flight)
        return err_set(err, "record for case %d while case %d was in flight", m->index, w->in_flight), 0;
    if (m->type == MSG_LAUNCH && (m->launch != launches || launches >= repeats))
        return err_set(err, "launch %d of case %d after %d of its %d", m->launch, m->index, launches, repeats), 0;
    int api = (m->seen & CLS_API) != 0;
    if (m->type == MSG_RESULT && (m->launch != launches || (api ? launches >= repeats : launches != repeats)))
        return err_set(err, "result of case %d claiming %d launches%s after %d of its %d", m->index, m->launch,
                       api ? " and a failed call" : "", launches, repeats),
               0;
    return 1;
}

int sup_due(const struct run_ctx *cx, const struct sup_group *s, const struct sup_worker *w, const struct msg *m,
            struct hb_err *err)
{
    if ((m->type == MSG_GROUP || m->type == MSG_LOAD) && (w->said_group || w->in_flight >= 0 || w->progressed))
        return err_set(err, "%s record after its cases began", m->type == MSG_LOAD ? "load" : "group"), 0;
    /* Kernel code that has run in the worker (its static constructors, at load) could send
     * the record an unsupported load would: a SKIP counts only when the backend decided it
     * before (prepare). */
    if (m->type == MSG_GROUP && m->rc == HB_UNSUPPORTED && w->kernel_ran)
        return err_set(err, "a SKIP claimed after a kernel's code could run in the worker: not believed"), 0;
    if (m->type == MSG_DONE && (w->in_flight >= 0 || (!w->said_group && s->next < s->g->n_cases)))
        return err_set(err, "DONE with case %d of %d %s", w->in_flight >= 0 ? w->in_flight : s->next, s->g->n_cases,
                       w->in_flight >= 0 ? "in flight" : "due"),
               0;
    if (m->type == MSG_GROUP || m->type == MSG_DONE || m->type == MSG_LOAD)
        return 1;
    return sup_case_due(cx, s, w, m, err);
}

/* A BEGIN: the row the case's outputs will fill, the parent's identity and case fields. */
static void sup_begin(struct run_ctx *cx, struct sup_group *s, struct sup_worker *w, int index)
{
    const struct group *g = s->g;
    const struct case_data *d = &cx->data[g->cases[index]];
    struct rep_result r;
    rows_identity(&r, g);
    rows_case(&r, d->c);
    vfy_free(&w->check);
    vfy_begin(&w->check, g->k, d, &r);
}

/* A RESULT: the row made of the case's outputs, with what the child said went wrong. */
static void sup_result(struct run_ctx *cx, struct sup_group *s, struct sup_worker *w, const struct msg *m)
{
    const struct group *g = s->g;
    vfy_end(&w->check, m);
    struct rep_result r = w->check.r;
    vfy_free(&w->check);
    sup_judge(cx, g, &r);
    sup_push_row(s, &r);
    sup_count(s, &r);
    s->next = m->index + 1;
    /* A canary caught by an API error (a GPU's crash: its worker leaves with the context) is
     * caught, as one that crashed or hung is: each further case would cost a new process and
     * context (the standard tier's slowest group on the H200) and show nothing new. */
    s->stop |= r.verdict == V_XFAIL && (r.cmp.classes & CLS_API);
}

/* A group the child says cannot run: SKIP where the backend does not support it, else ERROR,
 * with the backend's words. */
static void sup_child_group_row(struct sup_group *s, const struct msg *m)
{
    struct rep_result r;
    int unsupported = m->rc == HB_UNSUPPORTED;
    rows_group(&r, s->g, unsupported ? V_SKIP : V_ERROR, unsupported ? 0 : CLS_API, m->why);
    sup_push_row(s, &r);
    s->stop = 1;
}

/* A launch's output has been read whole: judged now, in the parent. */
static void sup_launch(struct run_ctx *cx, struct sup_worker *w, const struct msg *m)
{
    double t0 = now_ms();
    cx->device_ms += m->kernel_ms;
    vfy_launch(&w->check, m);
    cx->phase_ms[PH_COMPARE] += now_ms() - t0;
}

void sup_message(struct run_ctx *cx, struct sup_group *s, struct sup_worker *w, const struct msg *m)
{
    double now = now_ms();
    w->heard = 1;
    for (int p = 0; p < PH_COUNT; p++)
        cx->phase_ms[p] += m->phase_ms[p];
    /* A case's launches run under its deadline from BEGIN on. */
    if (m->type == MSG_LAUNCH) {
        sup_launch(cx, w, m);
        return;
    }
    /* Between cases, and while the kernel loads, the run's own timeout applies. */
    w->deadline = now + cx->o->timeout_s * 1000;
    if (m->type == MSG_BEGIN) {
        w->in_flight = m->index;
        w->case_start = now;
        w->deadline = now + sup_case_timeout_s(cx, s->g) * 1000;
        sup_begin(cx, s, w, m->index);
    } else if (m->type == MSG_RESULT) {
        sup_result(cx, s, w, m);
        w->in_flight = -1;
        w->progressed = 1;
    } else if (m->type == MSG_GROUP) {
        w->said_group = 1;
        sup_child_group_row(s, m);
    } else if (m->type == MSG_LOAD) {
        w->kernel_ran = 1;
    } else {
        w->group = -1;
        w->deadline = 0;
        w->served++;
    }
}

/* The most telling line of what a dead worker printed: a sanitizer's summary or error line,
 * the C library's report ("malloc(): corrupted top size"), any error, else its last line. */
static void sup_output_line(const struct sup_worker *w, char *out, size_t len)
{
    static const char *const marks[] = {"SUMMARY:", "ERROR", "(): ", "corrupt", "double free", "rror", "ssert"};
    enum { N_MARKS = sizeof marks / sizeof marks[0] };
    char text[sizeof w->out + 1];
    memcpy(text, w->out, w->out_len);
    text[w->out_len] = 0;
    const char *pick[N_MARKS + 1] = {NULL};
    for (char *save = NULL, *line = strtok_r(text, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        while (*line == ' ' || *line == '\t' || *line == '=')
            line++;
        if (!*line)
            continue;
        pick[N_MARKS] = line;
        for (int i = 0; i < N_MARKS; i++)
            if (!pick[i] && strstr(line, marks[i]))
                pick[i] = line;
    }
    for (int i = 0; i <= N_MARKS; i++)
        if (pick[i]) {
            snprintf(out, len, "%s", pick[i]);
            return;
        }
    out[0] = 0;
}

/* Why a worker ended without finishing, as a class and words; 0 when it ended cleanly after
 * an API error and a fresh worker should take the next case. */
static unsigned sup_why(const struct run_ctx *cx, const struct sup_group *s, const struct sup_worker *w, char *why,
                        size_t len)
{
    unsigned cls = CLS_CRASH;
    if (w->bad_message[0]) {
        snprintf(why, len, "child sent a malformed message (%.150s): killed", w->bad_message);
    } else if (w->timed_out) {
        snprintf(why, len, "no answer in %.0f s: killed",
                 w->in_flight < 0 ? cx->o->timeout_s : sup_case_timeout_s(cx, s->g));
        cls = CLS_TIMEOUT;
    } else if (WIFSIGNALED(w->status)) {
        const char *name = strsignal(WTERMSIG(w->status));
        snprintf(why, len, "child died: %s (signal %d)", name ? name : "signal", WTERMSIG(w->status));
    } else if (w->in_flight < 0) {
        if (w->progressed)
            return 0;
        snprintf(why, len, "child exited with status %d before its first case", WEXITSTATUS(w->status));
        cls = CLS_API;
    } else {
        snprintf(why, len, "child exited with status %d mid-case", WEXITSTATUS(w->status));
    }
    char said[160];
    sup_output_line(w, said, sizeof said);
    if (said[0]) {
        size_t used = strlen(why);
        snprintf(why + used, len - used, "; it printed: %s", said);
    }
    return cls;
}

/* Whether w is a reused worker lost before it said a word of s (stopped or killed while idle,
 * or stuck closing its last group): the group never began in it, so no kernel of s is to blame.
 * s goes to another worker, once; a second loss is the group's own. */
static int sup_hand_on(struct sup_group *s, const struct sup_worker *w)
{
    if (!w->served || w->heard || s->handed_on)
        return 0;
    s->handed_on = 1;
    prog_clear();
    fprintf(stderr,
            "harness: a reused worker (pid %d) was lost before group %s/%s began in it (%s): the group goes "
            "to another worker\n",
            (int)w->ch.pid, s->g->k ? s->g->k->lang : "vendor", s->g->k ? s->g->k->name : s->g->p->vendor,
            w->timed_out ? "no answer: killed" : "it ended");
    return 1;
}

int sup_worker_lost(struct run_ctx *cx, struct sup_group *s, struct sup_worker *w)
{
    const struct group *g = s->g;
    if (s->stop || s->next >= g->n_cases)
        return 0;
    if (sup_hand_on(s, w))
        return 1;
    char why[512];
    unsigned cls = sup_why(cx, s, w, why, sizeof why);
    if (!cls)
        return 1;
    struct rep_result r;
    if (w->in_flight < 0) {
        /* Died before any case: the whole group is unusable. */
        rows_group(&r, g, V_ERROR, cls, why);
        sup_push_row(s, &r);
        s->stop = 1;
        return 0;
    }
    rows_identity(&r, g);
    r.cmp.classes = cls;
    rows_case(&r, cx->data[g->cases[w->in_flight]].c);
    r.child_ms = now_ms() - w->case_start;
    /* A hung kernel held the device until it was killed: that wait is kernel time. */
    if (w->timed_out)
        cx->device_ms += r.child_ms;
    char verdict_why[256];
    r.verdict = verdict_case(&r.cmp, g->k ? kern_expected_bad(g->k, g->width.width) : 0, g->k ? g->k->expect : 0, 0,
                             NULL, verdict_why, sizeof verdict_why);
    txt_printf(r.why, sizeof r.why, "%s; %s", why, verdict_why);
    sup_push_row(s, &r);
    sup_count(s, &r);
    s->next = w->in_flight + 1;
    /* A canary that crashed or hung as it should has been caught. */
    s->stop |= r.verdict == V_XFAIL;
    return !s->stop && s->next < g->n_cases;
}

/* memcheck stops a kernel at its first bad access, so the launch fails: rows from first_row on
 * whose launch failed take the tool's finding and are judged again (a canary that expects oob
 * is then caught, not an ERROR). */
static void sup_stopped_by_tool(struct run_ctx *cx, struct sup_group *s, int first_row)
{
    for (int i = first_row < 0 ? 0 : first_row; i < s->n_rows; i++) {
        struct rep_result *r = &s->rows[i];
        if (r->group_row || !(r->cmp.classes & CLS_API))
            continue;
        char verdict_why[256];
        r->cmp.classes |= CLS_OOB;
        s->failing -= verdict_fails_run(r->verdict);
        r->verdict = sup_verdict(cx, s->g, r, verdict_why, sizeof verdict_why);
        s->failing += verdict_fails_run(r->verdict);
        s->caught |= r->verdict == V_XFAIL;
        txt_printf(r->why, sizeof r->why,
                   "launch stopped by compute-sanitizer memcheck at a bad access (its row "
                   "names it); %s",
                   verdict_why);
    }
}

/* The tool's findings for one sanitized worker: a race or a bad access is a verdict. */
static void sup_sanitizer_row(struct run_ctx *cx, struct sup_group *s, const char *log, int first_row)
{
    const struct group *g = s->g;
    char summary[768];
    long findings = san_findings(log, summary, sizeof summary);
    if (!findings)
        return;
    struct rep_result r;
    unsigned cls = findings < 0 ? CLS_API : !strcmp(cx->o->sanitize, "racecheck") ? CLS_NONDET : CLS_OOB;
    rows_group(&r, g, V_ERROR, cls, NULL); /* its verdict is judged below */
    /* A group row named for the tool rather than "*": one per sanitized worker. */
    snprintf(r.case_name, sizeof r.case_name, "%s", cx->o->sanitize);
    if (r.cmp.classes == CLS_OOB)
        sup_stopped_by_tool(cx, s, first_row);
    char verdict_why[256];
    r.verdict = verdict_case(&r.cmp, kern_expected_bad(g->k, g->width.width), g->k->expect, 0, NULL, verdict_why,
                             sizeof verdict_why);
    snprintf(r.why, sizeof r.why, "compute-sanitizer %s: %.700s; %.100s", cx->o->sanitize,
             findings < 0 ? "no summary in its log" : summary, verdict_why);
    sup_push_row(s, &r);
    s->caught |= r.verdict == V_XFAIL;
}

void sup_sanitized_end(struct run_ctx *cx, struct sup_group *s, const char *log, int first_row)
{
    if (log[0] && s->g->k)
        sup_sanitizer_row(cx, s, log, first_row);
}

void sup_group_finish(struct run_ctx *cx, struct sup_group *s)
{
    const struct group *g = s->g;
    s->state = SUP_FINISHED;
    s->ended = now_ms();
    int expected_bad = g->k ? kern_expected_bad(g->k, g->width.width) : 0;
    if (!expected_bad || s->caught || !verdict_group_xpass(s->ran, s->passed) || intr_signal || cx->stopped)
        return;
    struct rep_result r;
    rows_group(&r, g, V_XPASS, 0, NULL);
    char wanted[128];
    class_names(g->k->expect, wanted, sizeof wanted);
    snprintf(r.why, sizeof r.why, "known-bad kernel passed every case at width %d: the harness missed %s",
             g->width.width, g->k->expect ? wanted : "its width bug");
    sup_push_row(s, &r);
}
