/* worker.c: the child side of a group. It sets the width's environment, loads the backend,
 * opens the device, loads the kernel and runs the group's cases from `start` on, streaming a
 * BEGIN before and a RESULT after each (protocol.h). It decides each case's verdict through
 * verdict.c and exits after an API error, so a sticky device error cannot leak into the next
 * case: the parent starts a fresh child there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"
#include "protocol.h"
#include "runner.h"
#include "testbed.h"

void wk_send_group_row(int fd, const struct group *g, enum hb_verdict v, unsigned classes, const char *why)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_GROUP;
    run_fill_identity(&m.r, g);
    m.r.group_row = 1;
    snprintf(m.r.case_name, sizeof m.r.case_name, "*");
    m.r.verdict = v;
    m.r.cmp.classes = classes;
    txt_copy(m.r.why, sizeof m.r.why, why);
    msg_send(fd, &m);
}

/* Opens the backend, device and kernel; on failure sends the group's row and exits. */
static const struct hb_backend *wk_open(const struct run_ctx *cx, const struct group *g, int fd, hb_ctx **hctx,
                                        hb_kern **kern)
{
    if (g->width.env[0])
        putenv(xstrdup(g->width.env));
    if (cx->o->schedule)
        setenv("HB_SIM_SCHEDULE", cx->o->schedule, 1);
    struct hb_err err = {{0}};
    const struct hb_backend *be = ldr_open(g->p->name, &err);
    if (!be) {
        wk_send_group_row(fd, g, V_ERROR, CLS_API, err.msg);
        _exit(0);
    }
    char msg[512] = "";
    int rc = be->open(hctx, g->device, g->width.width, msg, sizeof msg);
    if (rc != HB_OK) {
        wk_send_group_row(fd, g, rc == HB_UNSUPPORTED ? V_SKIP : V_ERROR, rc == HB_UNSUPPORTED ? 0 : CLS_API, msg);
        _exit(0);
    }
    *kern = NULL;
    if (!g->k)
        return be;
    struct hb_kernel_spec spec;
    kern_spec(g->k, path_exe_dir(), &spec);
    rc = be->load(*hctx, &spec, kern);
    if (rc != HB_OK) {
        wk_send_group_row(fd, g, rc == HB_UNSUPPORTED ? V_SKIP : V_ERROR, rc == HB_UNSUPPORTED ? 0 : CLS_API,
                          be->last_error(*hctx));
        be->close(*hctx);
        _exit(0);
    }
    return be;
}

/* The row's verdict and reason, any API message first. */
static void wk_judge(const struct run_ctx *cx, const struct group *g, const struct hb_case *c, struct rep_result *r)
{
    char kernel_name[sizeof r->lang + sizeof r->kernel], verdict_why[256];
    snprintf(kernel_name, sizeof kernel_name, "%s/%s", r->lang, r->kernel);
    const struct known_bug *bug = known_match(&cx->known, r->backend, r->device, kernel_name, c->name);
    int expected_bad = g->k ? kern_expected_bad(g->k, g->width.width) : 0;
    unsigned allowed = g->k && g->k->nondeterministic ? CLS_NONDET : 0;
    r->verdict = verdict_case(&r->cmp, expected_bad, g->k ? g->k->expect : 0, allowed, bug, verdict_why,
                              sizeof verdict_why);
    if (r->why[0] && verdict_why[0]) {
        char api_why[sizeof r->why];
        memcpy(api_why, r->why, sizeof api_why);
        txt_printf(r->why, sizeof r->why, "%s; %s", api_why, verdict_why);
    } else if (!r->why[0]) {
        snprintf(r->why, sizeof r->why, "%s", verdict_why);
    }
}

void wk_group_child(struct run_ctx *cx, const struct group *g, int start, int fd)
{
    hb_ctx *hctx = NULL;
    hb_kern *kern = NULL;
    const struct hb_backend *be = wk_open(cx, g, fd, &hctx, &kern);
    for (int i = start; i < g->n_cases; i++) {
        struct msg m;
        memset(&m, 0, sizeof m);
        m.type = MSG_BEGIN;
        m.index = i;
        msg_send(fd, &m);
        const struct case_data *d = &cx->data[g->cases[i]];
        m.type = MSG_RESULT;
        run_fill_identity(&m.r, g);
        run_fill_case(&m.r, d->c);
        if (kern && be->abi >= 2 && be->kernel_origin && be->kernel_origin(hctx, kern))
            snprintf(m.r.binary, sizeof m.r.binary, "%s", be->kernel_origin(hctx, kern));
        double t0 = now_ms();
        int sticky = tb_run_case(be, hctx, kern, g->k, d, cx->o->repeats, &m.r);
        m.r.child_ms = now_ms() - t0;
        wk_judge(cx, g, d->c, &m.r);
        msg_send(fd, &m);
        if (sticky)
            _exit(0); /* a fresh child gets a fresh device context */
    }
    if (kern)
        be->unload(hctx, kern);
    be->close(hctx);
    _exit(0);
}

int wk_sanitized_child(struct run_ctx *cx, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    char backend[16], kernel[128];
    int device, width, start, used = 0;
    const char *fd_text = getenv("HB_CHILD_FD");
    if (!fd_text || sscanf(o->group_child, "%15[^:]:%d:%d:%127[^:]:%d%n", backend, &device, &width, kernel, &start, &used) != 5 ||
        o->group_child[used]) {
        err_set(err, "--group-child %s: internal option, expected B:D:W:lang/kernel:start and HB_CHILD_FD", o->group_child);
        return EXIT_USAGE;
    }
    struct probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", backend);
    const struct hb_backend *be = ldr_open(backend, err);
    if (!be)
        return EXIT_NO_DEVICE;
    p.count = be->list_devices(p.dev, MAX_DEVICES, p.err, sizeof p.err);
    struct group g = {&p, 0, device, {width, ""}, NULL, NULL, 0};
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
    plan_select_cases(cx, g.k, NULL, 0);
    plan_prepare(cx);
    plan_group_cases(cx, &g);
    wk_group_child(cx, &g, start, atoi(fd_text));
    return EXIT_OK; /* not reached: wk_group_child exits */
}
