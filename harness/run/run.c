/* SPDX-License-Identifier: MIT */
/* run.c: plans and runs a conformance pass. Nothing API-related happens in this process: a
 * probe child lists each backend's devices, and the (backend, device, width, kernel) groups
 * run in worker children, several at once (sched.c), that stream each launch's output back
 * for this process to judge; a child that dies or hangs costs one ERROR row for the case in
 * flight. Inputs and references are made here once per case (plan.c), the references in memory
 * no worker has, so every kernel, backend and width is judged against the same ones. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "cref.h"
#include "guard.h"
#include "jsonl.h"
#include "outputs.h"
#include "ref.h"
#include "runner.h"
#include "text.h"
#include "trace.h"

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
    r->op = g->k ? g->k->op : op_vendor();
}

void run_group_row(struct rep_result *r, const struct group *g, enum hb_verdict verdict, const char *why)
{
    run_fill_identity(r, g);
    r->group_row = 1;
    snprintf(r->case_name, sizeof r->case_name, "*");
    r->verdict = verdict;
    txt_copy(r->why, sizeof r->why, why ? why : "");
}

void run_fill_case(struct rep_result *r, const struct hb_case *c)
{
    snprintf(r->case_name, sizeof r->case_name, "%s", c->name);
    r->n_sizes = c->n_sizes;
    memcpy(r->sizes, c->sizes, sizeof r->sizes);
    snprintf(r->dist, sizeof r->dist, "%s", case_dist_name(c->dist));
    r->seed = c->seed;
    if (c->note[0] && !r->note[0])
        snprintf(r->note, sizeof r->note, "%s", c->note);
}

void run_add_result(struct run_ctx *cx, const struct rep_result *r, int backend_slot)
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

/* Before the first group nothing is worth finishing: a signal says so and exits at once
 * (the reports already hold only this run's header; the JSON gets its end record from a
 * buffer made in advance, as a handler may only write(2)), killing the children (a reference's
 * compiler, a reference) and removing the references' build folder, since no atexit handler
 * runs; afterwards it stops the run, which writes what came. */
static volatile sig_atomic_t run_started;
/* Case data goes to the arena (arena.h) in this run. */
static int arena_open_now;
static int early_json_fd = -1;
static char early_json_end[96];

static void on_signal(int sig)
{
    if (run_started) {
        sup_interrupted = sig;
        return;
    }
    char msg[] = "\nharness: interrupted by signal NN before the first result: the reports hold none\n";
    char *nn = strstr(msg, "NN");
    nn[0] = (char)('0' + sig / 10 % 10), nn[1] = (char)('0' + sig % 10);
    child_kill_children_now();
    cref_remove_now();
    if (early_json_fd >= 0 && write(early_json_fd, early_json_end, strlen(early_json_end)) < 0)
        _exit(128 + sig);
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
        _exit(128 + sig);
    _exit(128 + sig);
}

static void run_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* One per core this process may run on. */
static int run_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The emulator runs each launch's blocks on HB_SIM_THREADS threads (default: one per core).
 * With every worker doing so, jobs x cores threads share the cores: the workers get the cores
 * between them instead (2 cores, 2 jobs: the quick tier on lavapipe and the emulator 145 ->
 * 131 s, the same records). A value the user set is theirs; children inherit the variable. */
static void run_share_cores(struct run_ctx *cx)
{
    const char *set = getenv("HB_SIM_THREADS");
    if (set && *set) {
        snprintf(cx->sim_threads, sizeof cx->sim_threads, "HB_SIM_THREADS=%.20s", set);
        return;
    }
    int per_worker = run_cores() / cx->jobs;
    snprintf(cx->sim_threads, sizeof cx->sim_threads, "%d", per_worker > 1 ? per_worker : 1);
    setenv("HB_SIM_THREADS", cx->sim_threads, 1);
}

static void print_timing(struct run_ctx *cx, const struct probe *probes, int n_probes, double ref_ms, double t_ref,
                         double total_ms)
{
    /* References made while groups run cost the run only until the first group started. */
    double waited_ms = ref_ms;
    if (cx->first_group_ms > t_ref && cx->first_group_ms - t_ref < ref_ms)
        waited_ms = cx->first_group_ms - t_ref;
    /* Kernel time is every launch's, the repeats (the determinism check) included. Summed over
     * workers running at once it can exceed the wall clock: it is scaled by the wall time the
     * workers had per second of their summed lives. */
    double groups_ms = total_ms - waited_ms, scale = 1;
    if (cx->busy_ms > groups_ms && groups_ms > 0)
        scale = groups_ms / cx->busy_ms;
    double kernel_ms = cx->device_ms * scale, harness_ms = total_ms - waited_ms - kernel_ms;
    printf("Where the time went: %.1f s in all (%d jobs, %.1f busy on average); references (OpenBLAS, float64) "
           "%.1f s, %.1f s of it before the first group; kernels on the device %.1f s (every launch, hangs until "
           "killed; first launches %.1f s, the fastest launch of each case %.1f s); harness (data movement, checks, "
           "process starts) %.1f s (%.0f%%)\n",
           total_ms / 1e3, cx->jobs, groups_ms > 0 ? cx->busy_ms / groups_ms : 0, ref_ms / 1e3, waited_ms / 1e3,
           kernel_ms / 1e3, cx->first_launch_ms * scale / 1e3, cx->kernel_ms * scale / 1e3, harness_ms / 1e3,
           total_ms > 0 ? 100 * harness_ms / total_ms : 0);
    printf("Harness time by phase, summed over workers:");
    for (int p = 0; p < PH_COUNT; p++)
        printf("%s %s %.1f s", p ? ";" : "", msg_phase_name((enum msg_phase)p), cx->phase_ms[p] / 1e3);
    printf("; reports %.1f s\n", cx->report_ms / 1e3);
    /* The emulator's first launch of a case is the checked one; its repeats may run unchecked. */
    for (int i = 0; i < n_probes; i++)
        if ((probes[i].caps & HB_CAP_IN_PROCESS) && cx->kernel_ms_by_backend[i] > 0 &&
            cx->first_launch_ms_by_backend[i] > 0)
            printf("Emulator: %.3g emulated threads per second in first launches (checked; %llu threads in %.1f s), "
                   "%.3g in the fastest launch of each case (%.1f s)\n",
                   cx->threads_by_backend[i] / (cx->first_launch_ms_by_backend[i] / 1e3),
                   (unsigned long long)cx->threads_by_backend[i], cx->first_launch_ms_by_backend[i] / 1e3,
                   cx->threads_by_backend[i] / (cx->kernel_ms_by_backend[i] / 1e3), cx->kernel_ms_by_backend[i] / 1e3);
}

/* What run_start hands the run: the groups, their scheduler (its first workers may be
 * opening their devices already) and the time the references took. */
struct run_plan {
    struct group *groups;
    int n_groups;
    struct sched *sched;
    struct plan_pool *prep; /* threads still making case data, NULL when it is all made */
    double t_ref, ref_ms;   /* when the references began; how long they took */
};

/* The case data is all made: the threads are joined, the arena takes no more. */
static void run_prepare_done(struct run_plan *plan)
{
    plan->ref_ms = plan_prepare_wait(plan->prep);
    plan->prep = NULL;
    arena_seal();
}

/* The groups, then the case data and references on threads while the first workers open
 * their devices (on a GPU each context takes its turn in the driver: 1.3 s for 8 workers on
 * the H200) and each group starts once its cases' data is made. Workers see data made after
 * they were forked because it is in the arena; without one, they start after all of it. */
static void run_plan_and_prepare(struct run_ctx *cx, const struct probe *probes, int n_probes, struct run_plan *plan)
{
    plan->n_groups = plan_split_groups(cx, &plan->groups, plan_groups(cx, probes, n_probes, &plan->groups));
    plan->sched = sched_start(cx, plan->groups, plan->n_groups, arena_open_now);
    plan->prep = plan_prepare_start(cx, plan->groups, plan->n_groups, cx->jobs);
    if (!arena_open_now)
        run_prepare_done(plan);
}

/* Everything before the first group: reports and after-run outputs (opened, so a previous
 * run's never look current, and checked before anything takes time), probes, case selection,
 * memory check, references. Returns an exit code, or -1 to go on. */
static int run_start(struct run_ctx *cx, struct probe *probes, int *n_probes, struct run_plan *plan, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    struct run_header *h = xcalloc(1, sizeof *h);
    out_header(o, h);
    plan_fingerprint(cx, h->selection); /* the same in every shard: merge compares them */
    int bad = out_prepare(&cx->out, err) || rep_open(&cx->sink, o->json, o->junit, h, err);
    free(h);
    if (bad)
        return EXIT_USAGE;
    if (cx->sink.json) {
        FILE *end = fmemopen(early_json_end, sizeof early_json_end, "w");
        if (end)
            jsonl_write_end(end, 0, 1), fclose(end);
        early_json_fd = fileno(cx->sink.json);
    }
    int no_device;
    double t_probe = now_ms();
    *n_probes = plan_probe(o, probes, err, &no_device);
    trace_span(TRACE_MAIN_TRACK, "harness", "probe", "a child lists each backend's devices", t_probe, now_ms());
    if (*n_probes < 0)
        return no_device ? EXIT_NO_DEVICE : EXIT_USAGE;
    if (plan_check_selection(cx, probes, *n_probes, err))
        return EXIT_USAGE;
    double t_ref = now_ms();
    /* Not under a sanitizer: each of its groups has a process of its own, started late. Twice
     * the host's memory: address space only (pages are committed as they are written), and
     * case data beyond it could not stay in memory anyway. */
    double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    arena_open_now = !o->sanitize && host > 0 && arena_open((size_t)(2 * host)) == 0;
    ref_set_keep(arena_calloc_own, arena_free); /* the parent's alone, arena or not: no worker has them */
    int selected_cases = plan_select_cases(cx, NULL, probes, *n_probes);
    if (plan_check_memory(cx, probes, *n_probes, err))
        return EXIT_USAGE;
    plan->t_ref = t_ref;
    trace_span(TRACE_MAIN_TRACK, "harness", "select", "cases, memory check", t_ref, now_ms());
    double t_plan = now_ms();
    run_plan_and_prepare(cx, probes, *n_probes, plan);
    trace_span(TRACE_MAIN_TRACK, "harness", "plan", "groups, first workers forked, data threads started", t_plan,
               now_ms());
    char when[64] = "progress (each group starts once its cases are made)";
    if (!plan->prep)
        snprintf(when, sizeof when, "%.1f s", plan->ref_ms / 1e3);
    printf("harness: %d cases, %d kernels; references in %s on %d threads (%s); emulator schedule %s, threads "
           "per worker %s; guard bands %zu KiB each side (on GPUs a write further out is not seen: --guard-kib)\n",
           selected_cases, cx->kernels.n, when, cx->jobs, ref_library(), o->schedule, cx->sim_threads,
           grd_band() / 1024);
    return -1;
}

static int run_finish(struct run_ctx *cx, struct hb_err *err)
{
    int code = rep_failed(&cx->sink) || cx->stopped ? EXIT_FAILURES : EXIT_OK;
    if (code == EXIT_OK && !rep_ran(&cx->sink) && !cx->o->allow_empty && !sup_interrupted) {
        printf("harness: no case ran (%s): exit %d; --allow-empty accepts that\n",
               cx->sink.n ? "every kernel skipped" : "no kernel, case and device matched", EXIT_NOTHING_RAN);
        code = EXIT_NOTHING_RAN;
    }
    code = out_finish(&cx->out, &cx->sink, code, sup_interrupted != 0, err);
    /* A run cut short by a signal says so in its status, as a shell expects. */
    return sup_interrupted ? 128 + (int)sup_interrupted : code;
}

int run_conformance(const struct run_opts *o, struct hb_err *err)
{
    double t0 = now_ms();
    struct run_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    if (o->guard_kib)
        grd_set_band((size_t)o->guard_kib * 1024); /* in range: checked with the option */
    cx.jobs = o->jobs > 0 ? o->jobs : run_cores();
    run_share_cores(&cx);
    cx.out.html = o->html, cx.out.record = o->record, cx.out.compare = o->compare, cx.out.csv = o->csv;
    base_opts_init(&cx.out.base);
    cx.out.base.fail_on_bits = o->fail_on_bits, cx.out.base.allow_new = o->allow_new;
    if (o->perf_pct > 0)
        cx.out.base.perf_pct = o->perf_pct, cx.out.base.fail_on_perf = 1;
    run_started = 0;
    early_json_fd = -1;
    run_catch_signals();
    /* A sanitized group's child has its parent's command line: the parent alone traces. */
    int code = plan_load(&cx, err) || trace_open(o->group_child ? NULL : o->trace, t0, err) ? EXIT_USAGE : -1;
    trace_track(TRACE_MAIN_TRACK, "%s", "harness (parent)");
    if (code < 0 && o->group_child)
        code = wk_sanitized_child(&cx, err);
    struct probe probes[LDR_MAX];
    int n_probes = 0;
    struct run_plan plan = {NULL, 0, NULL, NULL, 0, 0};
    if (code < 0)
        code = run_start(&cx, probes, &n_probes, &plan, err);
    if (code < 0) {
        run_started = 1;
        sched_run(plan.sched);
        if (plan.prep)
            run_prepare_done(&plan);
        if (o->shrink && !sup_interrupted)
            shrink_failures(&cx, probes, n_probes);
        if (sup_interrupted)
            printf("\nharness: interrupted by signal %d: reports hold every result so far\n", (int)sup_interrupted);
        print_timing(&cx, probes, n_probes, plan.ref_ms, plan.t_ref, now_ms() - t0);
        code = run_finish(&cx, err);
        trace_span(TRACE_MAIN_TRACK, "harness", "run", NULL, t0, now_ms());
        plan_free_groups(plan.groups, plan.n_groups);
    }
    if (trace_close(err) && code == EXIT_OK)
        code = EXIT_USAGE;
    out_release(&cx.out);
    rep_close(&cx.sink);
    plan_free(&cx);
    ref_set_keep(NULL, NULL);
    arena_close();
    return code;
}
