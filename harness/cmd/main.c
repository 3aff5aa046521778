/* SPDX-License-Identifier: MIT */
/* main.c: the command line. Picks the command and hands its arguments to that command's
 * option table (run_options.c, bench_options.c, merge_options.c); every command returns one
 * of run_opts.h's exit codes, which main returns as they are. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "listing.h"
#include "merge.h"
#include "ref.h"
#include "run.h"
#include "run_options.h"
#include "shard.h"
#include "util.h"
#include "version.h"

static const char usage[] =
    "usage: harness <command> [options]\n"
    "\n"
    "commands:\n"
    "  run       run every selected kernel on each backend, device and width, compare with OpenBLAS\n"
    "            (run --list: what would run, one pasteable id per line)\n"
    "  list      show backends, their devices and widths, and the kernels found\n"
    "  bench     speed of each kernel against the vendor library and a device copy, same run\n"
    "  merge     join --shard outputs into one report\n"
    "  known-bugs  draft a known-bug list from a run's FAIL and ERROR results (--from RUN.jsonl)\n"
    "  version   version, git commit, build flags and backends built (also --version)\n"
    "  help      this text (also --help); help COMMAND: that command's options\n"
    "\n"
    "harness COMMAND --help lists a command's options.\n"
    "exit codes: 0 every verdict acceptable; 1 a FAIL, XPASS or ERROR; 2 bad usage or input file;\n"
    "            3 a backend asked for by name has no usable device; 4 no case ran\n";

int bench_command(int argc, char **argv);
int known_bugs_command(int argc, char **argv);

/* run and list: argv[0] is the command. */
static int run_command(int argc, char **argv, int full_argc, char **full_argv)
{
    struct run_opts o;
    run_opts_init(&o);
    o.argc = full_argc;
    o.argv = full_argv;
    struct hb_err err = {{0}};
    int rc = run_parse_options(argc, argv, &o, &err);
    if (rc) {
        if (rc < 0)
            fprintf(stderr, "harness: %s\n", err.msg);
        run_opts_free(&o);
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int code = !strcmp(argv[0], "list") ? list_all(&o, &err)
               : o.list                 ? list_ids(&o, &err)
               : o.devices_all          ? shard_devices_all(&o)
                                        : run_conformance(&o, &err);
    if (err.msg[0])
        fprintf(stderr, "harness: %s\n", err.msg);
    run_opts_free(&o);
    return code;
}

/* One command, argv[0] its name and argv[-1] the program's; -1 when there is no such command. */
static int dispatch(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *cmd = argv[0];
    if (!strcmp(cmd, "run") || !strcmp(cmd, "list"))
        return run_command(argc, argv, full_argc, full_argv);
    if (!strcmp(cmd, "bench"))
        return bench_command(argc, argv);
    if (!strcmp(cmd, "merge"))
        return merge_main(argc + 1, argv - 1);
    if (!strcmp(cmd, "known-bugs"))
        return known_bugs_command(argc, argv);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        version_print(stdout);
        return EXIT_OK;
    }
    return -1;
}

int main(int argc, char **argv)
{
    /* Before anything runs: OpenBLAS picks its kernels when it loads, so a better core than
     * its fallback takes a fresh start (the variable set, no second one). */
    const char *core = ref_better_core();
    if (core && !setenv("OPENBLAS_CORETYPE", core, 1))
        execv("/proc/self/exe", argv); /* on failure: go on with the slow kernels */
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    /* A write past the file size limit (ulimit -f) is an error it reports (EFBIG, "File too
     * large", naming the file), not a death with no word and every report cut. */
    signal(SIGXFSZ, SIG_IGN);
    /* A kernel's grandchild that left its process group (setsid) is ours to end at exit. */
    child_adopt_orphans();
    atexit(child_kill_orphans);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        if (argc < 3) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        /* help COMMAND: the command's own --help (merge_main takes the program's name too). */
        char *args[] = {argv[0], argv[2], "--help", NULL};
        int code = dispatch(2, args + 1, argc, argv);
        if (code >= 0)
            return code;
        cmd = argv[2];
    } else {
        int code = dispatch(argc - 1, argv + 1, argc, argv);
        if (code >= 0)
            return code;
    }
    fprintf(stderr, "harness: unknown command '%s' (run, list, bench, merge, known-bugs, version, help)\n", cmd);
    return EXIT_USAGE;
}
