/* SPDX-License-Identifier: MIT */
/* shard.c: see shard.h. Each shard is this same binary re-run with --shard k/N --device k
 * and its own JSON file; the parent waits for all of them and hands the files to merge,
 * which rebuilds the single JUnit, JSON, HTML and summary. A shard dies with the parent; a
 * SIGINT or SIGTERM to the parent goes to every shard, whose reports (all they had) are
 * still merged, and the temporary folder goes in every case. A shard that died before its end
 * record (killed) keeps the results it wrote: its file is closed as an interrupted run's, and
 * the merged reports say the run was interrupted, as they do after a signal. */
#include "shard.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "cli.h"
#include "jsonl.h"
#include "loader.h"
#include "merge.h"
#include "probe.h"
#include "run.h"
#include "util.h"

#define SHARD_MAX MAX_DEVICES
/* After passing a signal on, how long the shards have to write their reports and exit. */
#define SHARD_GRACE_MS 10000.0

static volatile sig_atomic_t shard_signal;

static void shard_on_signal(int sig) { shard_signal = sig; }

/* The options a shard must not inherit: reports, the baseline record and the gate are the
 * merge's (a shard holds only its device's results), --devices is this very split, and each
 * shard traces into a file of its own. */
static const char *const shard_dropped[] = {"--devices", "--junit",  "--json",    "--html",
                                            "--trace",   "--record", "--compare", "--csv"};

/* The child side of shard k: its own process group, death with the parent, the filter that
 * keeps it and all it starts from signalling the parent (child.h; the shard's own children each
 * add theirs for the shard), then exec. */
static void shard_exec(const struct run_opts *o, const struct child_protected *parent, int k, int n, const char *file)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    child_guard(parent);
    char exe[4096], shard[32], device[16], jobs[24], trace[4200];
    snprintf(exe, sizeof exe, "%s/harness", path_exe_dir());
    snprintf(shard, sizeof shard, "%d/%d", k, n);
    snprintf(device, sizeof device, "%d", k);
    /* Without --jobs, the shards share the cores rather than each taking all of them. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(jobs, sizeof jobs, "%ld", cores > n ? cores / n : 1);
    char **args = xcalloc((size_t)o->argc + 14, sizeof *args);
    int m = 0;
    args[m++] = exe;
    m += cli_argv_without(o->argc, o->argv, shard_dropped, sizeof shard_dropped / sizeof *shard_dropped, args + m);
    char *extra[] = {"--shard", shard, "--device", device, "--json", (char *)file, "--quiet", "--jobs", jobs};
    size_t n_extra = sizeof extra / sizeof extra[0] - (o->jobs ? 2 : 0);
    for (size_t e = 0; e < n_extra; e++)
        args[m++] = extra[e];
    if (o->trace) {
        snprintf(trace, sizeof trace, "%s.device%d", o->trace, k);
        args[m++] = "--trace", args[m++] = trace;
    }
    execv(exe, args);
    perror("harness: exec shard");
    _exit(EXIT_USAGE);
}

/* Waits for every shard; a signal to this process is passed on to each, and a shard still
 * running SHARD_GRACE_MS later is killed with its group. Returns the worst of the
 * shards' usage (2) and no-device (3) exits, else 0; failed[k] is shard k's status when it
 * failed in any other way (exit 1, a signal), which fails the run whatever the merged
 * results say. */
static int shard_wait(pid_t *pids, int n, int *failed)
{
    int worst = EXIT_OK, left = n, forwarded = 0;
    double deadline = 0; /* now_ms(): a monotonic clock, which a wall clock set back does not stretch */
    while (left) {
        if (shard_signal && !forwarded) {
            for (int k = 0; k < n; k++)
                if (pids[k] > 0)
                    kill(pids[k], (int)shard_signal);
            forwarded = 1;
            deadline = now_ms() + SHARD_GRACE_MS;
        }
        if (deadline && now_ms() > deadline)
            for (int k = 0; k < n; k++)
                if (pids[k] > 0)
                    kill(-pids[k], SIGKILL), kill(pids[k], SIGKILL);
        int status = 0;
        pid_t pid = waitpid(-1, &status, forwarded ? WNOHANG : 0);
        if (pid == 0 || (pid < 0 && errno == EINTR)) {
            if (pid == 0)
                usleep(50000);
            continue;
        }
        if (pid < 0)
            break;
        for (int k = 0; k < n; k++)
            if (pids[k] == pid) {
                int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                if (code == EXIT_USAGE || code == EXIT_NO_DEVICE)
                    worst = code;
                /* No case on a device (4) is for the merge to judge over all of them. */
                else if (code != EXIT_OK && code != EXIT_NOTHING_RAN)
                    failed[k] = code;
                pids[k] = -1, left--;
            }
    }
    return worst;
}

/* The merged run's page, record and gate, from the command line. */
static void shard_out_opts(const struct run_opts *o, struct out_opts *out)
{
    memset(out, 0, sizeof *out);
    out->html = o->html, out->record = o->record, out->compare = o->compare, out->csv = o->csv;
    base_opts_init(&out->base);
    out->base.fail_on_bits = o->fail_on_bits, out->base.allow_new = o->allow_new;
    if (o->perf_pct > 0)
        out->base.perf_pct = o->perf_pct, out->base.fail_on_perf = 1;
}

/* A shard's file cut short (its shard killed): a line cut in its middle goes, and an end record
 * saying interrupted, with the count of the results it holds, closes it. Returns 1 when the
 * file was cut or holds no run header (nothing of the shard is there), else 0. */
static int shard_close_cut(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    long last_nl = -1, at = 0;
    for (int ch; (ch = getc(f)) != EOF; at++)
        if (ch == '\n')
            last_nl = at;
    fclose(f);
    int cut = at > 0 && last_nl != at - 1;
    if (cut && truncate(path, last_nl + 1) != 0)
        return 1;
    struct jsonl_run run;
    struct hb_err err = {{0}};
    if (jsonl_read_run(path, &run, &err))
        return 0; /* not this format: the merge says why */
    int sealed = run.has_header && !run.has_end;
    if (sealed && (f = fopen(path, "a"))) {
        jsonl_write_end(f, run.n, 1);
        fclose(f);
    }
    int missing = !run.has_header;
    jsonl_run_free(&run);
    return sealed || missing || cut;
}

/* The shards' files that hold something, merged into the run's reports: those of shards that
 * did not finish closed first, and the whole marked interrupted when any did not finish or a
 * signal stopped the run. */
static int shard_merge(const struct run_opts *o, char files[][4200], int n, const int *failed)
{
    struct merge_opts mo;
    memset(&mo, 0, sizeof mo);
    const char *inputs[SHARD_MAX];
    int used = 0;
    for (int k = 0; k < n; k++) {
        struct stat st;
        int cut = failed[k] && shard_close_cut(files[k]);
        if (cut)
            fprintf(stderr,
                    "harness: the shard of device %d ended (status %d) before its reports did: the results it had "
                    "are merged, the rest are missing (the reports say interrupted)\n",
                    k, failed[k]);
        mo.interrupted |= cut;
        if (stat(files[k], &st) == 0 && st.st_size > 0)
            inputs[used++] = files[k];
        else
            mo.interrupted = mo.allow_partial = 1; /* nothing of it: the merge covers the others */
    }
    if (!used) {
        fprintf(stderr, "harness: no shard wrote a result\n");
        return EXIT_FAILURES;
    }
    mo.interrupted |= shard_signal != 0;
    printf("\nharness: %d device shards done; merged report:\n", n);
    shard_out_opts(o, &mo.out);
    mo.junit = o->junit, mo.json = o->json;
    mo.inputs = inputs, mo.n_inputs = used;
    return merge_files(&mo);
}

int shard_devices_all(const struct run_opts *o)
{
    const char *backend = o->backends[0];
    struct hb_err known = {{0}};
    if (!backend || ldr_check_known(backend, &known)) {
        fprintf(stderr, "harness: %s\n",
                backend ? known.msg : "--devices all needs --backend NAME (one backend's devices)");
        return EXIT_USAGE;
    }
    struct probe p;
    prb_probe(backend, &p);
    if (p.count <= 0) {
        fprintf(stderr, "harness: backend %s: no usable device: %s\n", backend, p.err[0] ? p.err : "none found");
        return EXIT_NO_DEVICE;
    }
    /* The baseline and the outputs are checked before any shard runs, as a run checks them. */
    struct out_opts check;
    struct hb_err err = {{0}};
    shard_out_opts(o, &check);
    if (out_prepare(&check, &err)) {
        fprintf(stderr, "harness: %s\n", err.msg);
        return EXIT_USAGE;
    }
    out_release(&check);
    int n = p.count < SHARD_MAX ? p.count : SHARD_MAX;
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096];
    snprintf(dir, sizeof dir, "%.4000s/hb-shards-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "harness: mkdtemp %s: %s\n", dir, strerror(errno));
        return EXIT_USAGE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = shard_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char files[SHARD_MAX][4200];
    pid_t pids[SHARD_MAX];
    struct child_protected self;
    child_protect_self(&self);
    for (int k = 0; k < n; k++) {
        snprintf(files[k], sizeof files[k], "%s/shard%d.jsonl", dir, k);
        fflush(NULL);
        pids[k] = fork();
        if (pids[k] == 0)
            shard_exec(o, &self, k, n, files[k]);
    }
    int failed[SHARD_MAX] = {0}, code = shard_wait(pids, n, failed);
    if (code == EXIT_OK)
        code = shard_merge(o, files, n, failed);
    for (int k = 0; k < n && code == EXIT_OK && !shard_signal; k++)
        if (failed[k]) {
            fprintf(stderr, "harness: the shard of device %d exited %d though its results pass: the run fails\n", k,
                    failed[k]);
            code = EXIT_FAILURES;
        }
    for (int k = 0; k < n; k++)
        unlink(files[k]);
    rmdir(dir);
    if (shard_signal) {
        printf("harness: interrupted by signal %d: the merged reports hold what the shards had\n", (int)shard_signal);
        return 128 + (int)shard_signal;
    }
    return code;
}
