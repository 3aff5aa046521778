/* SPDX-License-Identifier: MIT */
/* bench_options.c: the options of `harness bench`, as one cli.h table (--opt=value, --help,
 * comma lists), filling bench.h's struct bench_opts. What bench measures is bench.c's. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "run.h"

struct bench_cli {
    struct bench_opts b;
    char backends[256]; /* every --backend, joined by commas */
};

#define BC(dest) ((struct bench_cli *)(dest))

static int set_backend(void *d, const char *v, struct hb_err *e)
{
    char *all = BC(d)->backends;
    size_t used = strlen(all);
    if (!*v || snprintf(all + used, sizeof BC(d)->backends - used, "%s%s", used ? "," : "", v) >=
                   (int)(sizeof BC(d)->backends - used))
        return err_set(e, "expected backend names, comma separated"), -1;
    BC(d)->b.backends = all;
    return 0;
}

static int set_kernel(void *d, const char *v, struct hb_err *e)
{
    (void)e;
    return BC(d)->b.kernel_glob = v, 0;
}

static int set_sizes(void *d, const char *v, struct hb_err *e)
{
    char buf[256];
    struct bench_opts *b = &BC(d)->b;
    snprintf(buf, sizeof buf, "%s", v);
    b->n_sizes = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long n;
        if (parse_long(tok, &n) || n < 1 || n > 46340 || b->n_sizes == BENCH_MAX_SIZES)
            return err_set(e, "expected up to %d sizes from 1 to 46340, comma separated", BENCH_MAX_SIZES), -1;
        b->sizes[b->n_sizes++] = n;
    }
    return b->n_sizes ? 0 : (err_set(e, "expected sizes such as 1024,4096"), -1);
}

static int set_reduce_n(void *d, const char *v, struct hb_err *e)
{
    long n;
    if (parse_long(v, &n) || n < 1 || n > 2147483647L)
        return err_set(e, "expected an element count from 1 to 2147483647"), -1;
    return BC(d)->b.reduce_n = n, 0;
}

static int set_runs(void *d, const char *v, struct hb_err *e)
{
    long n;
    if (parse_long(v, &n) || n < 1 || n > 64)
        return err_set(e, "expected a run count from 1 to 64"), -1;
    return BC(d)->b.runs = (int)n, 0;
}

static int set_devices(void *d, const char *v, struct hb_err *e)
{
    if (strcmp(v, "all"))
        return err_set(e, "only 'all' (every device of each backend) is known"), -1;
    return BC(d)->b.all_devices = 1, 0;
}

#define SET_OUT(field)                                                                                                 \
    static int set_##field(void *d, const char *v, struct hb_err *e)                                                   \
    {                                                                                                                  \
        (void)e;                                                                                                       \
        return BC(d)->b.field = v, 0;                                                                                  \
    }
SET_OUT(json)
SET_OUT(csv)
SET_OUT(svg)

static const struct cli_opt bench_table[] = {
    {"backend", 'b', "B[,B]", set_backend,
     "backends to time, repeatable (default cuda); the first vendor library among them is the yardstick"},
    {"kernel", 'k', "GLOB", set_kernel, "only kernels whose name or lang/name matches"},
    {"sizes", 0, "N[,N]", set_sizes, "SGEMM cube sizes (default 1024,2048,4096,8192)"},
    {"reduce-n", 0, "N", set_reduce_n, "reduction length in floats (default 2^28)"},
    {"runs", 0, "N", set_runs, "timed runs per size; the median is reported (default 5)"},
    {"devices", 0, "all", set_devices, "every device of each backend (default: device 0)"},
    {"json", 0, "FILE", set_json, "every measured point as JSON"},
    {"csv", 0, "FILE", set_csv, "every measured point as CSV"},
    {"svg", 0, "FILE", set_svg, "a chart: % of the vendor library per size, one line per kernel"},
    {NULL, 0, NULL, NULL, NULL},
};

static const char bench_usage[] =
    "usage: harness bench [options]\n"
    "Times each kernel against the vendor library (SGEMM) and a device-to-device copy\n"
    "(reductions) measured in the same run.\n"
    "exit codes: 0 every kernel timed; 1 a kernel could not be timed; 2 bad usage; 3 a backend\n"
    "            has no usable device\n";

int bench_command(int argc, char **argv)
{
    struct bench_cli c = {{"cuda", NULL, {1024, 2048, 4096, 8192}, 4, 1L << 28, 5, 0, NULL, NULL, NULL}, ""};
    struct hb_err err = {{0}};
    int first, rc = cli_parse(argc, argv, bench_usage, bench_table, &c, &first, &err);
    if (!rc && first < argc)
        rc = -1, err_set(&err, "%s: unexpected argument (see harness bench --help)", argv[first]);
    if (rc) {
        if (rc < 0)
            fprintf(stderr, "harness: bench: %s\n", err.msg);
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int code = bench_main(&c.b, &err);
    if (err.msg[0])
        fprintf(stderr, "harness: %s\n", err.msg);
    return code;
}
