/* main.c: the command line. Parses options and calls the command's layer; every command
 * returns one of run.h's exit codes, which main returns as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "merge.h"
#include "shard.h"
#include "run.h"
#include "util.h"

static const char usage[] =
    "usage: harness <command> [options]\n"
    "\n"
    "commands:\n"
    "  run     run every selected kernel on each backend, device and width, compare with OpenBLAS\n"
    "  list    show backends, their devices and widths, and the kernels found\n"
    "  bench   speed of each kernel against the vendor library and a device copy, same run\n"
    "  merge   join --shard outputs into one report:\n"
    "          merge [--junit F] [--json F] [--html F] [--record F] [--compare F] IN.jsonl...\n"
    "  help    this text (also --help)\n"
    "\n"
    "run options:\n"
    "  --backend B      vulkan, cuda, hip or sim (default: every backend with a usable device;\n"
    "                   a backend named here that has no usable device exits 3)\n"
    "  --tier T         quick (default), standard or nightly: cases/T.cases\n"
    "  --cases FILE     a case catalogue instead of the tier's\n"
    "  --kernel GLOB    kernels by name or lang/name, e.g. 'reduce_*' or 'hip/*'\n"
    "  --case GLOB      cases by name\n"
    "  --width W[,W..]  only these warp/subgroup widths\n"
    "  --manifest FILE  also run the kernels of this manifest (repeatable)\n"
    "  --only-manifest  run only --manifest kernels, not the shipped ones\n"
    "  --junit FILE     JUnit XML, valid after every result\n"
    "  --json FILE      JSON lines, one per result as it arrives\n"
    "  --html FILE      one self-contained page: summary, and a heat map of where each failing\n"
    "                   case's bad elements sit\n"
    "  --record FILE    write this run as a baseline (versions, verdicts, errors, output hashes,\n"
    "                   time relative to the vendor library)\n"
    "  --compare FILE   the upgrade gate: fails on a verdict gone bad, error growth past 2x or a\n"
    "                   missing case; driver changes, changed bits and slowdowns are reported\n"
    "  --fail-on-bit-change  with --compare: changed output bits fail\n"
    "  --perf-threshold PCT  with --compare: slower by more than PCT percent fails\n"
    "  --known-bugs F   triaged driver/toolkit bugs (default cases/known-bugs): failing is XFAIL,\n"
    "                   passing is XPASS so a fixed driver says to remove its line\n"
    "  --timeout S      seconds one case may take before its child is killed (default 120)\n"
    "  --repeats N      launches per case, compared bit for bit (default 2, at least 2)\n"
    "  --schedule S     emulator interleaving: lockstep or random:SEED\n"
    "  --shard i/n      run the i-th of n deterministic slices of the cases (0 <= i < n)\n"
    "  --device K       only device K of each backend (default: all)\n"
    "  --devices all    with --backend: one shard per device in parallel, merged into one report\n"
    "  --sanitize T     run each group under CUDA's compute-sanitizer (memcheck or racecheck);\n"
    "                   its findings become verdicts (racecheck: nondeterministic, memcheck: oob)\n"
    "  --quiet          print only failures, skips and the summary\n"
    "\n"
    "bench options:\n"
    "  --backend B[,B]  backends to time; the first vendor library among them (cuBLAS) is the\n"
    "                   SGEMM yardstick for all\n"
    "  --kernel GLOB    kernels by name or lang/name\n"
    "  --sizes N[,N..]  SGEMM sizes, n x n x n (default 1024,2048,4096,8192)\n"
    "  --reduce-n N     reduction length (default 268435456 = 2^28 floats)\n"
    "  --runs N         timed launches per point, median reported (default 5)\n"
    "\n"
    "exit codes: 0 every verdict acceptable; 1 a FAIL, XPASS or ERROR; 2 bad usage or input file;\n"
    "            3 a backend asked for by name has no usable device\n";

static int parse_widths(const char *s, struct run_opts *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long w;
        if (parse_long(tok, &w) || w < 1 || w > 1024 || o->n_widths == RUN_MAX_LIST)
            return -1;
        o->widths[o->n_widths++] = (int)w;
    }
    return o->n_widths ? 0 : -1;
}

static int parse_options(int argc, char **argv, struct run_opts *o, struct hb_err *err)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1, takes = 0;
        } else if (!strcmp(a, "--fail-on-bit-change")) {
            o->fail_on_bits = 1, takes = 0;
        } else if (!strcmp(a, "--only-manifest")) {
            o->no_builtin = 1, takes = 0;
        } else if (!v) {
            err_set(err, "%s needs a value (or is unknown: see --help)", a);
            return -1;
        } else if (!strcmp(a, "--backend")) {
            o->backend = v;
        } else if (!strcmp(a, "--tier")) {
            o->tier = v;
        } else if (!strcmp(a, "--cases")) {
            o->cases = v;
        } else if (!strcmp(a, "--kernel")) {
            o->kernel_glob = v;
        } else if (!strcmp(a, "--case")) {
            o->case_glob = v;
        } else if (!strcmp(a, "--junit")) {
            o->junit = v;
        } else if (!strcmp(a, "--shard")) {
            int i = -1, n = 0, used = 0;
            if (sscanf(v, "%d/%d%n", &i, &n, &used) != 2 || v[used] || n < 1 || i < 0 || i >= n) {
                err_set(err, "--shard %s: expected i/n with 0 <= i < n", v);
                return -1;
            }
            o->shard = i, o->shards = n;
        } else if (!strcmp(a, "--device")) {
            long d;
            if (parse_long(v, &d) || d < 0 || d > 15) {
                err_set(err, "--device %s: expected a device index from 0 to 15", v);
                return -1;
            }
            o->device = (int)d;
        } else if (!strcmp(a, "--sanitize")) {
            if (strcmp(v, "memcheck") && strcmp(v, "racecheck")) {
                err_set(err, "--sanitize %s: expected memcheck or racecheck", v);
                return -1;
            }
            o->sanitize = v;
        } else if (!strcmp(a, "--group-child")) {
            o->group_child = v;
        } else if (!strcmp(a, "--known-bugs")) {
            o->known_bugs = v;
        } else if (!strcmp(a, "--json")) {
            o->json = v;
        } else if (!strcmp(a, "--html")) {
            o->html = v;
        } else if (!strcmp(a, "--record")) {
            o->record = v;
        } else if (!strcmp(a, "--compare")) {
            o->compare = v;
        } else if (!strcmp(a, "--perf-threshold")) {
            long pct;
            if (parse_long(v, &pct) || pct < 1 || pct > 10000) {
                err_set(err, "--perf-threshold %s: expected a percentage from 1 to 10000", v);
                return -1;
            }
            o->perf_pct = (double)pct;
        } else if (!strcmp(a, "--schedule")) {
            if (strcmp(v, "lockstep") && strncmp(v, "random:", 7)) {
                err_set(err, "--schedule %s: expected lockstep or random:SEED", v);
                return -1;
            }
            o->schedule = v;
        } else if (!strcmp(a, "--manifest")) {
            if (o->n_manifests == RUN_MAX_LIST) {
                err_set(err, "at most %d --manifest files", RUN_MAX_LIST);
                return -1;
            }
            o->manifests[o->n_manifests++] = v;
        } else if (!strcmp(a, "--width")) {
            if (parse_widths(v, o)) {
                err_set(err, "--width %s: expected widths such as 32 or 4,8,16", v);
                return -1;
            }
        } else if (!strcmp(a, "--timeout")) {
            long t;
            if (parse_long(v, &t) || t < 1 || t > 86400) {
                err_set(err, "--timeout %s: expected seconds from 1 to 86400", v);
                return -1;
            }
            o->timeout_s = (double)t;
        } else if (!strcmp(a, "--repeats")) {
            long r;
            if (parse_long(v, &r) || r < 2 || r > 100) {
                err_set(err, "--repeats %s: expected 2 to 100 (two launches at least: the repeat check)", v);
                return -1;
            }
            o->repeats = (int)r;
        } else {
            err_set(err, "unknown option %s (see --help)", a);
            return -1;
        }
        i += takes;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    struct run_opts o;
    memset(&o, 0, sizeof o);
    o.timeout_s = 120;
    o.repeats = 2;
    o.device = -1;
    o.argc = argc;
    o.argv = argv;
    struct hb_err err = {{0}};
    int code;
    if (!strcmp(argv[1], "bench"))
        return bench_command(argc, argv);
    if (!strcmp(argv[1], "merge"))
        return merge_main(argc, argv);
    for (int i = 2; i + 1 < argc && !strcmp(argv[1], "run"); i++)
        if (!strcmp(argv[i], "--devices")) {
            if (strcmp(argv[i + 1], "all")) {
                fprintf(stderr, "harness: --devices %s: only 'all' (one shard per device) is known\n", argv[i + 1]);
                return EXIT_USAGE;
            }
            return shard_devices_all(argc, argv);
        }
    if (strcmp(argv[1], "run") && strcmp(argv[1], "list")) {
        fprintf(stderr, "harness: unknown command '%s' (run, list, bench, help)\n", argv[1]);
        return EXIT_USAGE;
    }
    if (parse_options(argc, argv, &o, &err)) {
        fprintf(stderr, "harness: %s\n", err.msg);
        return EXIT_USAGE;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    code = !strcmp(argv[1], "run") ? run_conformance(&o, &err) : run_list(&o, &err);
    if (err.msg[0])
        fprintf(stderr, "harness: %s\n", err.msg);
    return code;
}
