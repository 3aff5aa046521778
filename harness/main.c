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
    "  merge   join --shard outputs into one report\n"
    "  help    this text (also --help)\n"
    "\n"
    "harness COMMAND --help lists a command's options.\n"
    "exit codes: 0 every verdict acceptable; 1 a FAIL, XPASS or ERROR; 2 bad usage or input file;\n"
    "            3 a backend asked for by name has no usable device; 4 no case ran\n";

int run_parse_options(int argc, char **argv, struct run_opts *o, struct hb_err *err);

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (!strcmp(argv[1], "bench"))
        return bench_command(argc, argv);
    if (!strcmp(argv[1], "merge"))
        return merge_main(argc, argv);
    if (strcmp(argv[1], "run") && strcmp(argv[1], "list")) {
        fprintf(stderr, "harness: unknown command '%s' (run, list, bench, merge, help)\n", argv[1]);
        return EXIT_USAGE;
    }
    struct run_opts o;
    run_opts_init(&o);
    o.argc = argc;
    o.argv = argv;
    struct hb_err err = {{0}};
    int rc = run_parse_options(argc - 1, argv + 1, &o, &err);
    if (rc) {
        if (rc < 0)
            fprintf(stderr, "harness: %s\n", err.msg);
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int code = !strcmp(argv[1], "list") ? run_list(&o, &err)
             : o.devices_all           ? shard_devices_all(&o)
                                       : run_conformance(&o, &err);
    if (err.msg[0])
        fprintf(stderr, "harness: %s\n", err.msg);
    return code;
}
