/* run.c: plans and runs a conformance pass. Nothing API-related happens in this process: a
 * probe child lists each backend's devices, and each (backend, device, width, kernel) group
 * runs in children (supervise.c) that stream results back; a child that dies or hangs costs
 * one ERROR row for the case in flight. References are made here once per case before any
 * child is forked (plan.c), so every kernel, backend and width shares them. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "runner.h"

/* Whether a kernel came from a --manifest file rather than the shipped kernels/ folder: its
 * reproducer then names the manifests. */
static int run_user_kernel(const struct kern_desc *k)
{
    char *dir = path_join(path_root_dir(), "kernels/");
    int user = !k->file || strncmp(k->file, dir, strlen(dir)) != 0;
    free(dir);
    return user;
}

void run_fill_identity(struct rep_result *r, const struct group *g)
{
    memset(r, 0, sizeof *r);
    cmp_init(&r->cmp);
    snprintf(r->backend, sizeof r->backend, "%s", g->p->name);
    snprintf(r->device, sizeof r->device, "%s", g->p->dev[g->device].name);
    snprintf(r->driver, sizeof r->driver, "%s", g->p->dev[g->device].driver);
    snprintf(r->lang, sizeof r->lang, "%s", g->k ? g->k->lang : "vendor");
    snprintf(r->kernel, sizeof r->kernel, "%s", g->k ? g->k->name : g->p->vendor);
    snprintf(r->note, sizeof r->note, "%s", g->k && g->k->note ? g->k->note : "");
    r->device_index = g->device;
    r->user_manifest = g->k && run_user_kernel(g->k);
    r->width = g->width.width;
    r->op = g->k ? g->k->op : OP_SGEMM;
}

void run_fill_case(struct rep_result *r, const struct hb_case *c)
{
    snprintf(r->case_name, sizeof r->case_name, "%s", c->name);
    r->M = c->M, r->N = c->N, r->K = c->K, r->n = c->n;
    r->lda = c->lda, r->ldb = c->ldb, r->ldc = c->ldc;
    snprintf(r->dist, sizeof r->dist, "%s", case_dist_name(c->dist));
    r->seed = c->seed;
    if (c->note[0] && !r->note[0])
        snprintf(r->note, sizeof r->note, "%s", c->note);
}

void run_add_result(struct run_ctx *cx, const struct rep_result *r, int backend_slot)
{
    rep_add(&cx->sink, r);
    cx->kernel_ms += r->kernel_ms;
    cx->child_ms += r->child_ms;
    if (backend_slot >= 0) {
        cx->threads_by_backend[backend_slot] += r->threads;
        cx->kernel_ms_by_backend[backend_slot] += r->kernel_ms;
    }
    if (cx->silent)
        return;
    if (!cx->o->quiet || verdict_fails_run(r->verdict) || r->verdict == V_SKIP)
        if (r->verdict != V_PASS)
            rep_print_line(stdout, r, &cx->sink.hdr);
    fflush(stdout);
}

static void on_signal(int sig) { sup_interrupted = sig; }

static void print_timing(struct run_ctx *cx, const struct probe *probes, int n_probes, double ref_ms, double total_ms)
{
    double harness_ms = total_ms - ref_ms - cx->kernel_ms;
    printf("Where the time went: %.1f s in all; references (OpenBLAS, float64) %.1f s; kernels on the "
           "device %.1f s; harness (data movement, checks, process starts) %.1f s\n",
           total_ms / 1e3, ref_ms / 1e3, cx->kernel_ms / 1e3, harness_ms / 1e3);
    for (int i = 0; i < n_probes; i++)
        if (!strcmp(probes[i].name, "sim") && cx->kernel_ms_by_backend[i] > 0)
            printf("Emulator: %.3g emulated threads per second (%llu threads in %.1f s of launches)\n",
                   cx->threads_by_backend[i] / (cx->kernel_ms_by_backend[i] / 1e3),
                   (unsigned long long)cx->threads_by_backend[i], cx->kernel_ms_by_backend[i] / 1e3);
}

/* A kernel that only a race detector judges, in a run without one: a SKIP row saying so. */
static void run_skip_racecheck(struct run_ctx *cx, const struct group *g)
{
    struct rep_result r;
    run_fill_identity(&r, g);
    r.group_row = 1;
    snprintf(r.case_name, sizeof r.case_name, "*");
    r.verdict = V_SKIP;
    snprintf(r.why, sizeof r.why, "needs a race detector: run with --sanitize racecheck");
    run_add_result(cx, &r, g->slot);
}

/* The groups of one device at one width: the vendor library first (a second oracle), then
 * the kernels in manifest order. */
static void run_width(struct run_ctx *cx, const struct probe *p, int slot, int dv, int w)
{
    printf("%s: %s (%s), width %d\n", p->name, p->dev[dv].name, p->dev[dv].driver, p->dev[dv].widths[w].width);
    for (int k = -1; k < cx->kernels.n && !sup_interrupted; k++) {
        struct group g;
        enum plan_group what = plan_group_at(cx, p, slot, dv, w, k, &g);
        if (what == PLAN_NEEDS_RACECHECK)
            run_skip_racecheck(cx, &g);
        if (what == PLAN_GROUP)
            sup_run_group(cx, &g);
        free(g.cases);
    }
}

static void run_groups(struct run_ctx *cx, const struct probe *probes, int n_probes)
{
    const struct run_opts *o = cx->o;
    for (int b = 0; b < n_probes && !sup_interrupted; b++) {
        const struct probe *p = &probes[b];
        for (int dv = 0; dv < p->count && !sup_interrupted; dv++)
            for (int w = 0; w < p->dev[dv].n_widths && !sup_interrupted; w++)
                if (plan_width_runs(o, p, dv, w))
                    run_width(cx, p, b, dv, w);
    }
}

/* Everything before the first group: probes, case selection, memory check, report files
 * and after-run outputs, references. Returns an exit code, or -1 to go on. */
static int run_start(struct run_ctx *cx, struct probe *probes, int *n_probes, double *ref_ms, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    int no_device;
    *n_probes = plan_probe(o, probes, err, &no_device);
    if (*n_probes < 0)
        return no_device ? EXIT_NO_DEVICE : EXIT_USAGE;
    double t_ref = now_ms();
    int selected_cases = plan_select_cases(cx, NULL, probes, *n_probes);
    if (plan_check_memory(cx, probes, *n_probes, err))
        return EXIT_USAGE;
    /* Every output is opened and the baseline read before the references take their time. */
    struct run_header *h = xcalloc(1, sizeof *h);
    out_header(o, h);
    int bad = out_prepare(&cx->out, err) || rep_open(&cx->sink, o->json, o->junit, h, err);
    free(h);
    if (bad)
        return EXIT_USAGE;
    plan_prepare(cx);
    *ref_ms = now_ms() - t_ref;
    printf("harness: %d cases, %d kernels; references in %.1f s (%s); emulator schedule %s\n", selected_cases,
           cx->kernels.n, *ref_ms / 1e3, ref_library(), o->schedule);
    return -1;
}

static int run_finish(struct run_ctx *cx, struct hb_err *err)
{
    int code = sup_interrupted || rep_failed(&cx->sink) ? EXIT_FAILURES : EXIT_OK;
    if (code == EXIT_OK && !rep_ran(&cx->sink) && !cx->o->allow_empty) {
        printf("harness: no case ran (%s): exit %d; --allow-empty accepts that\n",
               cx->sink.n ? "every kernel skipped" : "no kernel, case and device matched", EXIT_NOTHING_RAN);
        code = EXIT_NOTHING_RAN;
    }
    return out_finish(&cx->out, &cx->sink, code, sup_interrupted != 0, err);
}

int run_conformance(const struct run_opts *o, struct hb_err *err)
{
    double t0 = now_ms();
    struct run_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    cx.out.html = o->html, cx.out.record = o->record, cx.out.compare = o->compare;
    base_opts_init(&cx.out.base);
    cx.out.base.fail_on_bits = o->fail_on_bits, cx.out.base.allow_new = o->allow_new;
    if (o->perf_pct > 0)
        cx.out.base.perf_pct = o->perf_pct, cx.out.base.fail_on_perf = 1;
    int code = plan_load(&cx, err) ? EXIT_USAGE : -1;
    if (code < 0 && o->group_child)
        code = wk_sanitized_child(&cx, err);
    struct probe probes[LDR_MAX];
    int n_probes = 0;
    double ref_ms = 0;
    if (code < 0)
        code = run_start(&cx, probes, &n_probes, &ref_ms, err);
    if (code < 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        run_groups(&cx, probes, n_probes);
        if (o->shrink && !sup_interrupted)
            shrink_failures(&cx, probes, n_probes);
        if (sup_interrupted)
            printf("\nharness: interrupted by signal %d: reports hold every result so far\n", (int)sup_interrupted);
        print_timing(&cx, probes, n_probes, ref_ms, now_ms() - t0);
        code = run_finish(&cx, err);
    }
    out_release(&cx.out);
    rep_close(&cx.sink);
    plan_free(&cx);
    return code;
}
