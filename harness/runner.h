/* runner.h: what the conformance run's own files share (run.c plans and drives, plan.c
 * chooses, supervise.c watches children, worker.c is the child, testbed.c runs one case,
 * sanitize.c wraps compute-sanitizer, listing.c lists). Not for the rest of the core. */
#ifndef HB_RUNNER_H
#define HB_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "case.h"
#include "known.h"
#include "loader.h"
#include "manifest.h"
#include "op.h"
#include "outputs.h"
#include "probe.h"
#include "report.h"
#include "run.h"

struct run_ctx {
    const struct run_opts *o;
    struct case_set cases;
    struct kern_set kernels;
    struct known_set known;
    struct case_data *data; /* one per case, in catalogue order */
    struct rep_sink sink;
    struct out_opts out;    /* after-run outputs, opened and checked before the run */
    double kernel_ms, child_ms;
    int silent;             /* results go to the sink only, not stdout (shrink.c's trials) */
    uint64_t threads_by_backend[LDR_MAX];
    double kernel_ms_by_backend[LDR_MAX];
};

/* A (backend, device, width, kernel) group: what one child runs. */
struct group {
    const struct probe *p;
    int slot;   /* index of p among the run's probes, for per-backend figures */
    int device;
    struct hb_width_option width;
    const struct kern_desc *k; /* NULL: the vendor library */
    int *cases;                /* indices into run_ctx.data */
    int n_cases;
};

/* plan.c */
int plan_load(struct run_ctx *cx, struct hb_err *err);
void plan_free(struct run_ctx *cx);
/* Probes the selected backends; -1 with err (*no_device when a named backend has none). */
int plan_probe(const struct run_opts *o, struct probe *probes, struct hb_err *err, int *no_device);
/* Marks the cases this run (or shard) uses, all of them or only those `only` runs. */
int plan_select_cases(struct run_ctx *cx, const struct kern_desc *only, const struct probe *probes, int n_probes);
void plan_prepare(struct run_ctx *cx);
int plan_check_memory(const struct run_ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err);
/* The group's cases: every used case the kernel (or the vendor SGEMM) runs, and --id asked for. */
void plan_group_cases(const struct run_ctx *cx, struct group *g);
/* Whether the run uses width w of device dv of p (--device, --width, --id). */
int plan_width_runs(const struct run_opts *o, const struct probe *p, int dv, int w);
/* The group of kernel k (-1: the vendor library) at that width, in g with its cases (free
 * g->cases unless PLAN_NO_GROUP), and whether it runs. */
enum plan_group { PLAN_NO_GROUP, PLAN_GROUP, PLAN_NEEDS_RACECHECK /* a SKIP row: no race detector */ };
enum plan_group plan_group_at(const struct run_ctx *cx, const struct probe *p, int slot, int dv, int w, int k,
                              struct group *g);
int plan_lang_listed(const char *langs, const char *lang);
int plan_kernel_selected(const struct run_opts *o, const char *lang, const char *name);
int plan_case_selected(const struct run_opts *o, const char *name);
int plan_backend_selected(const struct run_opts *o, const char *name);
int plan_width_selected(const struct run_opts *o, int width);
int plan_race_detector(const struct run_opts *o);

/* A result row's identity and case fields, for every writer. */
void run_fill_identity(struct rep_result *r, const struct group *g);
void run_fill_case(struct rep_result *r, const struct hb_case *c);
/* Adds one result to the reports and the run's figures, printing it when it is news. */
void run_add_result(struct run_ctx *cx, const struct rep_result *r, int backend_slot);

/* shrink.c: after the run, for each failing case (one per group and failure class), the
 * smallest sizes that still fail the same way, printed with a command that reruns them. */
void shrink_failures(struct run_ctx *cx, const struct probe *probes, int n_probes);

/* supervise.c: runs one group in child processes until every case has a row. */
void sup_run_group(struct run_ctx *cx, const struct group *g);
/* Set by the SIGINT/SIGTERM handler: stop after the child in flight. */
extern volatile sig_atomic_t sup_interrupted;

/* worker.c: the child side of a group; never returns. */
void wk_group_child(struct run_ctx *cx, const struct group *g, int start, int fd);
/* The far side of san_exec: rebuilds the group named by --group-child and runs it. */
int wk_sanitized_child(struct run_ctx *cx, struct hb_err *err);
/* A row about the whole group (SKIP, open ERROR) sent from a child. */
void wk_send_group_row(int fd, const struct group *g, enum hb_verdict v, unsigned classes, const char *why);

/* sanitize.c. san_exec replaces a forked child with the sanitized harness; never returns.
 * san_findings reads the tool's summary from its log ("RACECHECK SUMMARY: N hazards",
 * "ERROR SUMMARY: N errors"): N, or -1 when there is none. */
void san_exec(const struct run_ctx *cx, const struct group *g, int start, int fd, const char *log);
long san_findings(const char *log, char *summary, size_t len);

#endif
