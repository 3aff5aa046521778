/* SPDX-License-Identifier: MIT */
/* runner.h: what the conformance run's own files share (run.c plans and drives, plan.c
 * chooses, sched.c runs groups in parallel workers, supervise.c judges what a worker says
 * about its group, verify.c checks the outputs it sends, rows.c builds result rows, worker.c is
 * the child, testbed.c runs one case, sanitize.c wraps compute-sanitizer, progress.c draws the
 * status line, listing.c lists). Not for the rest of the core, nor for cmd/: run.h and
 * listing.h are run/'s face. */
#ifndef HB_RUNNER_H
#define HB_RUNNER_H

#include <stdatomic.h>
#include <stdint.h>

#include "case.h"
#include "child.h"
#include "custom.h"
#include "known.h"
#include "loader.h"
#include "manifest.h"
#include "op.h"
#include "outputs.h"
#include "probe.h"
#include "protocol.h"
#include "report.h"
#include "run_opts.h"
#include "verify.h"

struct run_ctx {
    const struct run_opts *o;
    struct case_set cases;
    struct kern_set kernels;
    struct known_set known;
    struct case_data *data; /* one per case, in catalogue order */
    struct rep_sink sink;
    struct out_opts out;                         /* after-run outputs, opened and checked before the run */
    double kernel_ms, first_launch_ms, child_ms; /* sums of the rows' figures */
    double device_ms;                            /* device time of every launch, repeats and hangs included */
    int silent;                                  /* results go to the sink only, not stdout (shrink.c's trials) */
    uint64_t threads_by_backend[LDR_MAX];
    double kernel_ms_by_backend[LDR_MAX], first_launch_ms_by_backend[LDR_MAX];
    double phase_ms[PH_COUNT]; /* children's time by phase, summed over all of them */
    double busy_ms;            /* worker lifetimes, summed: the run's parallel capacity used */
    double report_ms;          /* the parent writing rows into the reports */
    double first_group_ms;     /* now_ms() when the first group went to a worker; 0 before */
    /* Cases whose data threads are still making (plan_prepare_start). No worker is forked
     * until none is left: OpenBLAS's fork handler stops its threads, and hangs if one of
     * them is busy. */
    atomic_int unmade;
    int jobs;             /* workers at once */
    char sim_threads[40]; /* emulator threads per worker, as the run's first line says */
    int stopped;          /* --maxfail reached: nothing more runs */
};

/* A (backend, device, width, kernel) group: what one worker runs at a time. */
struct group {
    const struct probe *p;
    int slot; /* index of p among the run's probes, for per-backend figures */
    int device;
    struct hb_width_option width;
    const struct kern_desc *k; /* NULL: the vendor library */
    int *cases;                /* indices into run_ctx.data */
    int n_cases;
    int ordinal;        /* place in the serial order, which every output follows */
    int key;            /* its (backend, device, width): groups of one key share workers */
    int first_of_width; /* print the "backend: device, width" line before it */
    int skip_racecheck; /* no cases: a SKIP row saying a race detector is needed */
    char *no_case;      /* no case of the catalogue runs its kernel: a row saying why (malloc'd), else NULL */
    double cost;        /* estimated work, for longest first */
    double bytes;       /* device bytes of its largest case, guard bands included */
    int part, parts;    /* this group is part `part` of `parts` of one kernel's (parts.c) */
};

/* A worker child as its parent sees it. */
struct sup_worker {
    struct child ch;
    int key;
    const struct group *kind; /* a group of its key: its backend, device and width */
    int group;                /* the group it runs, -1 while idle */
    int in_flight;            /* case begun without a result, -1 none */
    double deadline;          /* now_ms() past which it is killed; 0: idle, none */
    double case_start, born;
    double assigned; /* now_ms() when its current group was sent (--trace) */
    int progressed;  /* a RESULT for its current group came */
    int said_group;  /* it sent a GROUP record for its current group: nothing of it runs */
    int kernel_ran;  /* it sent a LOAD: a kernel's code may have run in it, no SKIP of it is believed */
    int served;      /* groups it finished (a DONE): it is a reused worker when it takes another */
    int heard;       /* any record of its current group came */
    int first_row;   /* its group's row count when the group was sent: its rows follow */
    int timed_out, killed, exited, eof, status;
    double eof_at, exited_at;
    char bad_message[256];                 /* a malformed message: not trusted further */
    unsigned char buf[sizeof(struct msg)]; /* a message being read */
    size_t have;
    struct vfy_case check; /* the case in flight, judged from its outputs */
    struct msg launch;     /* the LAUNCH whose output is being read: out_have of out_need bytes */
    size_t out_need, out_have;
    char out[16384]; /* the tail of its captured stdout and stderr */
    size_t out_len, dropped;
    char log[4096]; /* sanitizer log, "" without --sanitize */
};

/* A group as the parent follows it: its rows wait here until every earlier group's are out. */
enum { SUP_PENDING, SUP_RUNNING, SUP_FINISHED };
struct sup_group {
    struct group *g;
    int state;
    int next; /* first case without a row */
    int ran, passed, caught, stop;
    struct rep_result *rows;
    int n_rows, cap_rows, emitted;
    int failing;    /* rows that fail the run, for the status line */
    int restarts;   /* workers lost mid-group: it may need a fresh one per case */
    int handed_on;  /* a reused worker was lost before the group began in it: it went to another */
    int data_ready; /* every case's data is made: the group may start */
    double started, ended;
};

/* plan.c */
int plan_load(struct run_ctx *cx, struct hb_err *err);
void plan_free(struct run_ctx *cx);
/* Probes the selected backends; -1 with err (*no_device when a named backend has none). */
int plan_probe(const struct run_opts *o, struct probe *probes, struct hb_err *err, int *no_device);
/* Marks the cases this run (or shard) uses, all of them or only those `only` runs. */
int plan_select_cases(struct run_ctx *cx, const struct kern_desc *only, const struct probe *probes, int n_probes);
/* Inputs and references of every used case, on `jobs` threads, largest first, for the kernels
 * the groups run it with (plan_prepare, and no groups: every kernel that takes it). plan_prepare
 * returns when they are made; plan_prepare_start returns at once, each case's `ready` says
 * when it is made, and plan_prepare_wait joins the threads and returns the time it took. */
void plan_prepare(struct run_ctx *cx, int jobs);
struct plan_pool;
struct plan_pool *plan_prepare_start(struct run_ctx *cx, const struct group *groups, int n_groups, int jobs);
double plan_prepare_wait(struct plan_pool *p);
/* Bytes of one case's buffers, without guards (plan_check_memory) or with them (a group's
 * largest case, which the scheduler fits on the device). */
double plan_case_bytes(const struct hb_case *c, const struct kern_set *ks);
int plan_check_memory(const struct run_ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err);
/* The group's cases: every used case the kernel (or the vendor SGEMM) runs and --id asked for,
 * with its cost. */
void plan_group_cases(const struct run_ctx *cx, struct group *g);
/* Whether the run uses width w of device dv of p (--device, --width, --id). */
int plan_width_runs(const struct run_opts *o, const struct probe *p, int dv, int w);
/* Every group of the run in serial order (vendor library first on each device and width,
 * then the kernels in manifest order); returns the count, *out malloc'd. */
int plan_groups(struct run_ctx *cx, const struct probe *probes, int n_probes, struct group **out);
void plan_free_groups(struct group *groups, int n);
/* Work of one case in arbitrary units, for the order and the parts only. */
double plan_case_cost(const struct hb_case *c);
/* plan_account.c. Why no case of the catalogue (the tier's or --cases, before any filter) can
 * run kernel k, as a row says it (malloc'd), or NULL when some case can; a shipped kernel on
 * a --cases catalogue is the user's choice, never one. The catalogue's name as messages
 * give it. The selection's fingerprint (run_header.selection): every case and kernel the
 * filters leave, the filters, the known bugs and the schedule, not the shard or device. */
char *plan_no_case(const struct run_ctx *cx, const struct kern_desc *k);
void plan_catalogue_name(const struct run_opts *o, char *buf, size_t len);
void plan_fingerprint(const struct run_ctx *cx, char out[17]);

/* oracle.c: runs a custom kernel's oracle on the emulator (custom.h's cus_oracle_fn). */
int orc_run(const struct kern_desc *k, const struct hb_case *c, const struct cus_data *cd, void *const outs[],
            int width, double timeout_s, char *why, size_t len);

/* parts.c: whether g's worker may serve further groups (not an in-process backend's, not a
 * sanitized one); and long groups cut into parts for cx->jobs workers, in place (returns the
 * count). */
int plan_reuses_workers(const struct run_opts *o, const struct group *g);
int plan_split_groups(const struct run_ctx *cx, struct group **groups, int n_groups);
/* filters.c: what the options select ('-GLOB' items deselect), and whether every filter
 * can select something here: -1 with the filter and the closest names (exit 2). */
int plan_check_selection(const struct run_ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err);
/* --id (sel_match) on what is known so far; the rest of the id matches anything. */
int plan_id_selected(const struct run_opts *o, const char *backend, int width, const char *lang, const char *kernel,
                     const char *case_name);
/* Whether the vendor library of some probed backend is selected for the case. */
int plan_vendor_selected(const struct run_opts *o, const struct probe *probes, int n_probes, const char *case_name);
int plan_lang_listed(const char *langs, const char *lang);
int plan_kernel_selected(const struct run_opts *o, const char *lang, const char *name);
int plan_case_selected(const struct run_opts *o, const char *name);
int plan_backend_selected(const struct run_opts *o, const char *name);
int plan_width_selected(const struct run_opts *o, int width);
int plan_race_detector(const struct run_opts *o);

/* shrink.c: after the run, for each failing case (one per group and failure class), the
 * smallest sizes that still fail the same way, printed with a command that reruns them. */
void shrink_failures(struct run_ctx *cx, const struct probe *probes, int n_probes);

/* supervise.c: the parent's judgement of what a worker says about its group. */
void sup_group_init(struct sup_group *s, struct group *g);
void sup_group_free(struct sup_group *s);
/* Appends a row to the group's buffer (rows go out in group order, sched.c). */
void sup_push_row(struct sup_group *s, const struct rep_result *r);
/* A worker's turn at s begins (its group was sent): nothing of it said yet. */
void sup_turn_start(struct sup_worker *w, const struct sup_group *s);
/* Whether record m (valid as protocol.h checks) is the one due from w, running s: 1, else 0 with
 * why in err. A worker sends only what it was asked for: the cases from s->next on, each begun,
 * its launches in order and as many as the run asks for, its result counting them; a group
 * record only before any case; DONE once the cases are through or the group could not run. */
int sup_due(const struct run_ctx *cx, const struct sup_group *s, const struct sup_worker *w, const struct msg *m,
            struct hb_err *err);
/* One checked record from the worker running s (a LAUNCH once its output is in w->check.got). */
void sup_message(struct run_ctx *cx, struct sup_group *s, struct sup_worker *w, const struct msg *m);
/* The worker running s has ended: rows for what it left unfinished. Returns 1 when the group
 * goes on in a fresh worker from s->next, 0 when it is finished. */
int sup_worker_lost(struct run_ctx *cx, struct sup_group *s, struct sup_worker *w);
/* A sanitized worker has ended: the tool's findings in its log become a row; under memcheck
 * the rows from first_row on whose launch failed take its finding (it stops the kernel). */
void sup_sanitized_end(struct run_ctx *cx, struct sup_group *s, const char *log, int first_row);
/* After the last case: the known-bad group's XPASS row; the group is finished. */
void sup_group_finish(struct run_ctx *cx, struct sup_group *s);
/* The case timeout of a group (its kernel's, or the run's). */
double sup_case_timeout_s(const struct run_ctx *cx, const struct group *g);

/* sched.c: runs every group, up to cx->jobs workers at once, and emits rows in group order.
 * sched_start makes the scheduler; with `early`, workers for the first groups start now and
 * open their devices while the caller makes the case data, which must then be in memory
 * they share (arena.h). sched_run runs each group once its cases' data is made (`ready`),
 * and frees the scheduler. */
struct sched;
struct sched *sched_start(struct run_ctx *cx, struct group *groups, int n_groups, int early);
void sched_run(struct sched *s);

/* worker.c: the child side. */
struct wk_spawn {
    const char *sanitize_log; /* run each group under compute-sanitizer, logging here */
    int one_group;            /* exit after the first group */
    int open_for;             /* a group whose device to open at once, before any command */
};
extern double wk_spawned_at;
/* Serves groups sent over io->cmd_fd until it closes; never returns. */
void wk_serve(struct run_ctx *cx, const struct group *groups, int n_groups, const struct wk_spawn *sp,
              const struct child_io *io);
/* The far side of san_exec: rebuilds the group named by --group-child and runs it. */
int wk_sanitized_child(struct run_ctx *cx, struct hb_err *err);

/* progress.c: the status line (a terminal) or a plain line now and then (a log). */
void prog_start(int quiet, double total_cost, int groups);
/* Called as rows arrive and groups end; redraws at most a few times a second. */
void prog_update(int groups_done, double cost_done, long results, long failures);
/* Clears the status line before other output. */
void prog_clear(void);
void prog_end(void);

/* sanitize.c. san_exec replaces a forked child with the sanitized harness; never returns.
 * san_findings reads the tool's summary from its log ("RACECHECK SUMMARY: N hazards",
 * "ERROR SUMMARY: N errors") and, when N > 0, its first report (kind, where, which thread):
 * N, or -1 when there is none. */
void san_exec(const struct run_ctx *cx, const struct group *g, int start, int fd, const char *log);
long san_findings(const char *log, char *summary, size_t len);

#endif
