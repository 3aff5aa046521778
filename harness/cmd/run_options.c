/* SPDX-License-Identifier: MIT */
/* run_options.c: the options of `harness run` and `harness list`, as one cli.h table: each
 * option's setter checks its value and fills struct run_opts. What they do is run.c's (and listing.c's). */
#include "run_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "guard.h"
#include "outputs.h"

#define RO(dest) ((struct run_opts *)(dest))

void run_opts_init(struct run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = 120;
    o->repeats = 2;
    o->device = -1;
    /* The emulator's default: each case's first launch in lockstep, the repeat under a random
     * interleaving seeded from this and the case, so a race shows as a repeat difference. */
    o->schedule = "mixed:0";
}

void run_opts_free(struct run_opts *o)
{
    for (int i = 0; i < o->n_backends; i++)
        free((char *)o->backends[i]);
    for (int i = 0; i < o->n_kernel_globs; i++)
        free((char *)o->kernel_globs[i]);
    for (int i = 0; i < o->n_case_globs; i++)
        free((char *)o->case_globs[i]);
    sel_free(&o->ids);
    free(o->rerun_header);
    o->rerun_header = NULL;
    o->n_backends = o->n_kernel_globs = o->n_case_globs = 0;
}

static int set_backend(void *d, const char *v, struct hb_err *e)
{
    if (!cli_list(v, RO(d)->backends, &RO(d)->n_backends, RUN_MAX_LIST))
        return 0;
    return err_set(e, "expected backend names, comma separated (vulkan, cuda, hip, sim)"), -1;
}

static int set_kernel(void *d, const char *v, struct hb_err *e)
{
    if (!cli_list(v, RO(d)->kernel_globs, &RO(d)->n_kernel_globs, RUN_MAX_LIST))
        return 0;
    return err_set(e, "expected kernel names or globs, comma separated, at most %d", RUN_MAX_LIST), -1;
}

static int set_case(void *d, const char *v, struct hb_err *e)
{
    if (!cli_list(v, RO(d)->case_globs, &RO(d)->n_case_globs, RUN_MAX_LIST))
        return 0;
    return err_set(e, "expected case names or globs, comma separated, at most %d", RUN_MAX_LIST), -1;
}

static int set_width(void *d, const char *v, struct hb_err *e)
{
    const char *items[RUN_MAX_LIST];
    int n = 0, rc = cli_list(v, items, &n, RUN_MAX_LIST - RO(d)->n_widths);
    for (int i = 0; i < n; i++) {
        long w;
        /* Warp, wavefront and subgroup sizes are powers of two on every API (Vulkan requires
         * it): any other number can never run, which is a usage error, not "nothing ran". */
        if (!rc && (parse_long(items[i], &w) || w < 1 || w > 1024 || (w & (w - 1))))
            rc = -1;
        if (!rc)
            RO(d)->widths[RO(d)->n_widths++] = (int)w;
        free((char *)items[i]);
    }
    if (rc)
        err_set(e, "expected powers of two from 1 to 1024, such as 32 or 4,8,16");
    return rc;
}

static int set_manifest(void *d, const char *v, struct hb_err *e)
{
    if (RO(d)->n_manifests == RUN_MAX_LIST)
        return err_set(e, "at most %d manifests", RUN_MAX_LIST), -1;
    RO(d)->manifests[RO(d)->n_manifests++] = v;
    return 0;
}

static int set_long(const char *v, long lo, long hi, long *out, const char *what, struct hb_err *e)
{
    if (!parse_long(v, out) && *out >= lo && *out <= hi)
        return 0;
    return err_set(e, "expected %s from %ld to %ld", what, lo, hi), -1;
}

static int set_timeout(void *d, const char *v, struct hb_err *e)
{
    long t;
    return set_long(v, 1, 86400, &t, "seconds", e) ? -1 : (RO(d)->timeout_s = (double)t, 0);
}

static int set_guard(void *d, const char *v, struct hb_err *e)
{
    long kib;
    if (set_long(v, GRD_BYTES / 1024, GRD_MAX_BYTES / 1024, &kib, "KiB", e))
        return -1;
    if (kib % (GRD_BYTES / 1024))
        return err_set(e, "expected a multiple of %u KiB (bands are whole pages)", GRD_BYTES / 1024), -1;
    return RO(d)->guard_kib = kib, 0;
}

static int set_repeats(void *d, const char *v, struct hb_err *e)
{
    long r;
    if (set_long(v, 2, 100, &r, "launches (two at least: the repeat check)", e))
        return -1;
    return RO(d)->repeats = (int)r, 0;
}

static int set_perf(void *d, const char *v, struct hb_err *e)
{
    long p;
    return set_long(v, 1, 10000, &p, "a percentage", e) ? -1 : (RO(d)->perf_pct = (double)p, 0);
}

static int set_device(void *d, const char *v, struct hb_err *e)
{
    long k;
    return set_long(v, 0, 15, &k, "a device index", e) ? -1 : (RO(d)->device = (int)k, 0);
}

static int set_devices(void *d, const char *v, struct hb_err *e)
{
    if (strcmp(v, "all"))
        return err_set(e, "only 'all' (one shard per device) is known"), -1;
    return RO(d)->devices_all = 1, 0;
}

/* More shards than this is no slicing a catalogue can use (and n must fit an int). */
#define RUN_MAX_SHARDS 65536

static int set_shard(void *d, const char *v, struct hb_err *e)
{
    /* Strict numbers: sscanf's %d would wrap 99999999999 into some other shard count. */
    char buf[64];
    long i = -1, n = 0;
    const char *slash = strchr(v, '/');
    if (slash && (size_t)(slash - v) < sizeof buf) {
        snprintf(buf, sizeof buf, "%.*s", (int)(slash - v), v);
        if (parse_long(buf, &i) || parse_long(slash + 1, &n))
            i = -1;
    }
    if (i < 0 || n < 1 || n > RUN_MAX_SHARDS || i >= n)
        return err_set(e, "expected i/n with 0 <= i < n <= %d", RUN_MAX_SHARDS), -1;
    RO(d)->shard = (int)i, RO(d)->shards = (int)n;
    return 0;
}

static int set_id(void *d, const char *v, struct hb_err *e) { return sel_parse(&RO(d)->ids, v, e); }

static int set_rerun(void *d, const char *v, struct hb_err *e)
{
    if (RO(d)->rerun_failed)
        return err_set(e, "given twice: one earlier run's results at a time"), -1;
    RO(d)->rerun_failed = v;
    RO(d)->rerun_header = xcalloc(1, sizeof *RO(d)->rerun_header);
    return sel_add_failed(&RO(d)->ids, v, RO(d)->rerun_header, e) < 0 ? -1 : 0;
}

static int set_jobs(void *d, const char *v, struct hb_err *e)
{
    long j;
    return set_long(v, 1, 256, &j, "a number of workers", e) ? -1 : (RO(d)->jobs = (int)j, 0);
}

static int set_maxfail(void *d, const char *v, struct hb_err *e)
{
    long n;
    return set_long(v, 1, 1000000, &n, "a number of failures", e) ? -1 : (RO(d)->maxfail = (int)n, 0);
}

static int set_exitfirst(void *d, const char *v, struct hb_err *e)
{
    (void)v, (void)e;
    return RO(d)->maxfail = 1, 0;
}

static int set_sanitize(void *d, const char *v, struct hb_err *e)
{
    if (strcmp(v, "memcheck") && strcmp(v, "racecheck"))
        return err_set(e, "expected memcheck or racecheck"), -1;
    return RO(d)->sanitize = v, 0;
}

static int set_schedule(void *d, const char *v, struct hb_err *e)
{
    char *end = NULL;
    const char *seed = !strncmp(v, "random:", 7) ? v + 7 : !strncmp(v, "mixed:", 6) ? v + 6 : NULL;
    /* strtoull takes "-1" (as 2^64 - 1), leading blanks and clamps what overflows; the
     * emulator takes none of them: a seed is digits from its first character, in range. */
    errno = 0;
    if (seed && *seed >= '0' && *seed <= '9')
        (void)strtoull(seed, &end, 0);
    if (errno || (seed && (*seed < '0' || *seed > '9')))
        seed = NULL;
    if (strcmp(v, "lockstep") && (!seed || !*seed || *end))
        return err_set(e, "expected mixed:SEED (the default, mixed:0), lockstep or random:SEED"), -1;
    return RO(d)->schedule = v, 0;
}

#define SET_STRING(field)                                                                                              \
    static int set_##field(void *d, const char *v, struct hb_err *e)                                                   \
    {                                                                                                                  \
        (void)e;                                                                                                       \
        return RO(d)->field = v, 0;                                                                                    \
    }
SET_STRING(tier)
SET_STRING(cases)
SET_STRING(junit)
SET_STRING(json)
SET_STRING(trace)
SET_STRING(html)
SET_STRING(csv)
SET_STRING(record)
SET_STRING(compare)
SET_STRING(known_bugs)
SET_STRING(group_child)

#define SET_FLAG(name, field)                                                                                          \
    static int set_##name(void *d, const char *v, struct hb_err *e)                                                    \
    {                                                                                                                  \
        (void)v, (void)e;                                                                                              \
        return RO(d)->field = 1, 0;                                                                                    \
    }
SET_FLAG(quiet, quiet)
SET_FLAG(only_manifest, no_builtin)
SET_FLAG(bits, fail_on_bits)
SET_FLAG(allow_empty, allow_empty)
SET_FLAG(allow_new, allow_new)
SET_FLAG(list, list)
SET_FLAG(shrink, shrink)

static const struct cli_opt run_table[] = {
    {"backend", 'b', "B[,B]", set_backend,
     "vulkan, cuda, hip or sim (default: every backend with a usable device; one named here that has no "
     "usable device exits 3)"},
    {"tier", 't', "T", set_tier, "quick (default), standard or nightly: cases/T.cases"},
    {"cases", 0, "FILE", set_cases, "a case catalogue instead of the tier's"},
    {"kernel", 'k', "GLOB[,GLOB]", set_kernel,
     "kernels by name or lang/name, e.g. 'reduce_*' or 'hip/*'; '-GLOB' leaves those out (repeatable); one that "
     "matches no kernel is an error"},
    {"case", 'c', "GLOB[,GLOB]", set_case, "cases by name; '-GLOB' leaves those out (repeatable)"},
    {"id", 0, "ID", set_id,
     "only this result: BACKEND:DEVICE:wWIDTH:LANG/KERNEL:CASE as --list prints it, a glob in any field, "
     "trailing fields optional (repeatable)"},
    {"list", 'l', NULL, set_list, "print the id of every result the run would make, one per line; run nothing"},
    {"rerun-failed", 0, "FILE", set_rerun,
     "rerun exactly the FAIL, XPASS and ERROR results of an earlier run's --json FILE, with that run's own "
     "tier or cases, manifests, schedule, known bugs and guard bands unless given here"},
    {"shrink", 0, NULL, set_shrink,
     "after the run, search each failing case for the smallest sizes that fail the same way and print "
     "a command that reruns that"},
    {"width", 'w', "W[,W]", set_width, "only these warp/subgroup widths (repeatable)"},
    {"manifest", 'm', "FILE", set_manifest, "also run the kernels of this manifest (repeatable)"},
    {"only-manifest", 0, NULL, set_only_manifest, "run only --manifest kernels, not the shipped ones"},
    {"junit", 0, "FILE", set_junit, "JUnit XML, valid after every result"},
    {"json", 0, "FILE", set_json, "JSON lines, one per result as it arrives"},
    {"trace", 0, "FILE", set_trace,
     "where the wall time went, as Chrome trace events (Perfetto, chrome://tracing): the probe, each "
     "case's data and references by thread, each group on its worker (--devices all: FILE.deviceK)"},
    {"html", 0, "FILE", set_html, "one self-contained page: summary and heat maps of where bad elements sit"},
    {"csv", 0, "FILE", set_csv,
     "one line per result as deqp-runner's results.csv: id, status, seconds, then verdict, classes, why"},
    {"record", 0, "FILE", set_record, "write this run as a baseline (versions, verdicts, errors, output hashes)"},
    {"compare", 0, "FILE", set_compare,
     "the upgrade gate: fails on a verdict gone bad, error growth past 2x or a missing case"},
    {"fail-on-bit-change", 0, NULL, set_bits, "with --compare: changed output bits fail"},
    {"perf-threshold", 0, "PCT", set_perf, "with --compare: slower by more than PCT percent fails"},
    {"allow-new", 0, NULL, set_allow_new, "with --compare: results the baseline lacks are reported, not an error"},
    {"known-bugs", 0, "FILE", set_known_bugs,
     "triaged driver/toolkit bugs, added to cases/known-bugs (harness known-bugs --from drafts one)"},
    {"timeout", 0, "S", set_timeout,
     "seconds one case, or a custom kernel's reference or oracle, may run before it is killed (default 120)"},
    {"repeats", 0, "N", set_repeats, "launches per case, compared bit for bit (default 2)"},
    {"guard-kib", 0, "K", set_guard,
     "guard band before and after every buffer, in KiB (default 4): on GPUs a write further out is not seen "
     "(the emulator checks every access; --sanitize memcheck does on CUDA)"},
    {"schedule", 0, "S", set_schedule,
     "emulator interleaving: mixed:SEED (default mixed:0: each case's first launch in lockstep, its repeats "
     "random), lockstep or random:SEED"},
    {"shard", 0, "i/n", set_shard, "run the i-th of n deterministic slices of the cases"},
    {"device", 0, "K", set_device, "only device K of each backend (default: all)"},
    {"devices", 0, "all", set_devices, "with --backend: one shard per device in parallel, merged into one report"},
    {"sanitize", 0, "T", set_sanitize, "run each group under compute-sanitizer (memcheck or racecheck)"},
    {"quiet", 'q', NULL, set_quiet, "print only failures, skips and the summary"},
    {"allow-empty", 0, NULL, set_allow_empty,
     "a run in which no case ran exits 0 (default: exit 4), and a kernel no case of the catalogue runs is a SKIP "
     "row (default: ERROR, no-case)"},
    {"jobs", 'j', "N", set_jobs,
     "groups run in N worker processes at once (default: one per core); reports are those of a serial run"},
    {"maxfail", 0, "N", set_maxfail, "stop after N failures (FAIL, XPASS, ERROR); the reports say what did not run"},
    {"exitfirst", 'x', NULL, set_exitfirst, "stop after the first failure (--maxfail 1)"},
    {"group-child", 0, "SPEC", set_group_child, NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const char run_usage[] =
    "usage: harness run [options]\n"
    "Runs every selected kernel on each backend, device and width over the tier's cases and compares\n"
    "each result with OpenBLAS and a float64 truth.\n"
    "exit codes: 0 every verdict acceptable; 1 a FAIL, XPASS or ERROR; 2 bad usage or input file;\n"
    "3 a backend asked for by name has no usable device; 4 no case ran (see --allow-empty)\n";

static const char list_usage[] =
    "usage: harness list [options]\n"
    "Shows the backends with their devices and widths, the kernels found and the case count.\n";

/* Options that each make sense but not together. */
static int run_check_together(const struct run_opts *o, struct hb_err *err)
{
    const char *names[] = {"--json", "--junit", "--html", "--record", "--trace", "--csv"};
    const char *paths[] = {o->json, o->junit, o->html, o->record, o->trace, o->csv};
    if (out_distinct(names, paths, 6, err))
        return -1;
    /* A slice's record misses the other slices' results and its gate calls them missing: the
     * gate belongs to the merged run (--devices all does it so; harness merge for --shard). */
    if (o->shards && (o->record || o->compare))
        return err_set(err,
                       "%s with --shard: a shard is a slice of the run; record or compare the merged shards "
                       "(harness merge %s FILE SHARD.jsonl...)",
                       o->record ? "--record" : "--compare", o->record ? "--record" : "--compare"),
               -1;
    if (o->shrink && o->sanitize)
        /* A sanitized child rebuilds its group from the command line, which cannot name the
         * generated trial cases. */
        return err_set(err, "--shrink cannot run under --sanitize"), -1;
    if (o->devices_all && o->n_backends != 1)
        return err_set(err, "--devices all needs --backend NAME (one backend's devices)"), -1;
    return 0;
}

/* A recorded path as the rerun must open it: relative ones were relative to the recorded run's
 * folder. Rewritten in place (the header's room); "" stays "". */
static const char *run_recorded_path(char *path, const char *cwd)
{
    if (path[0] && path[0] != '/' && cwd[0]) {
        char joined[REP_PATH];
        if (snprintf(joined, sizeof joined, "%s/%s", cwd, path) < (int)sizeof joined)
            memcpy(path, joined, strlen(joined) + 1);
    }
    return path;
}

/* --rerun-failed FILE reruns FILE's failures from FILE's own selection: what its run was
 * given (catalogue or tier, manifests, schedule, known bugs, guard bands) unless this command
 * line says otherwise. The strings stay in h, which the options own. */
static void run_take_recorded_selection(struct run_opts *o, struct run_header *h)
{
    if (!o->cases && !o->tier) {
        if (h->cases[0])
            o->cases = run_recorded_path(h->cases, h->cwd);
        else if (h->tier[0])
            o->tier = h->tier;
    }
    if (!o->n_manifests) {
        for (int i = 0; i < h->n_manifests && i < RUN_MAX_LIST; i++)
            o->manifests[o->n_manifests++] = run_recorded_path(h->manifests[i], h->cwd);
        o->no_builtin |= h->only_manifest;
    }
    if (!o->schedule && h->schedule[0])
        o->schedule = h->schedule;
    if (!o->known_bugs && h->known_bugs[0])
        o->known_bugs = run_recorded_path(h->known_bugs, h->cwd);
    if (!o->guard_kib && h->guard_bytes > 0)
        o->guard_kib = h->guard_bytes / 1024;
}

/* The emulator's device count, as harness/backends/sim/sim_backend.c takes it. */
#define RUN_SIM_MAX_DEVICES 8

/* HB_SIM_DEVICES is a setting like an option: a wrong one is a usage error naming it, not an
 * emulator without devices (exit 3), which a CMake test takes for Skipped. Checked when the
 * emulator may be probed (no --backend, or sim among them). */
static int run_check_sim_devices(const struct run_opts *o, struct hb_err *err)
{
    const char *v = getenv("HB_SIM_DEVICES");
    int sim = !o->n_backends;
    for (int i = 0; i < o->n_backends; i++)
        sim |= !strcmp(o->backends[i], "sim");
    long n;
    if (!sim || !v || !*v || (!parse_long(v, &n) && n >= 1 && n <= RUN_SIM_MAX_DEVICES))
        return 0;
    err_set(err, "HB_SIM_DEVICES=%s: expected a number of devices from 1 to %d (the emulator's; unset: 1)", v,
            RUN_SIM_MAX_DEVICES);
    return -1;
}

int run_parse_options(int argc, char **argv, struct run_opts *o, struct hb_err *err)
{
    int first;
    int rc = cli_parse(argc, argv, !strcmp(argv[0], "list") ? list_usage : run_usage, run_table, o, &first, err);
    if (rc)
        return rc;
    if (first < argc) {
        err_set(err, "%s: unexpected argument (see %s --help)", argv[first], argv[0]);
        return -1;
    }
    if (run_check_together(o, err) || run_check_sim_devices(o, err))
        return -1;
    if (o->rerun_header)
        run_take_recorded_selection(o, o->rerun_header);
    if (o->rerun_failed && !o->ids.n) {
        /* Nothing failed: nothing to rerun, which is success (not "nothing ran"). */
        printf("harness: %s has no FAIL, XPASS or ERROR result: nothing to rerun\n", o->rerun_failed);
        return 1;
    }
    return 0;
}
