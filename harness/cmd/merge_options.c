/* SPDX-License-Identifier: MIT */
/* merge_options.c: the options of `harness merge`, as one cli.h table (--opt=value, --help),
 * filling merge.h's struct merge_opts; the remaining arguments are the shard files. What a
 * merge does is merge.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "run.h"

#define MO(dest) ((struct merge_opts *)(dest))

#define SET_PATH(name, field)                                                                                          \
    static int set_##name(void *d, const char *v, struct hb_err *e)                                                    \
    {                                                                                                                  \
        (void)e;                                                                                                       \
        return MO(d)->field = v, 0;                                                                                    \
    }
SET_PATH(junit, junit)
SET_PATH(json, json)
SET_PATH(html, out.html)
SET_PATH(csv, out.csv)
SET_PATH(record, out.record)
SET_PATH(compare, out.compare)

static int set_bits(void *d, const char *v, struct hb_err *e)
{
    (void)v, (void)e;
    return MO(d)->out.base.fail_on_bits = 1, 0;
}

static int set_perf(void *d, const char *v, struct hb_err *e)
{
    long pct;
    if (parse_long(v, &pct) || pct < 1 || pct > 10000)
        return err_set(e, "expected a percentage from 1 to 10000"), -1;
    MO(d)->out.base.perf_pct = (double)pct, MO(d)->out.base.fail_on_perf = 1;
    return 0;
}

static int set_allow_new(void *d, const char *v, struct hb_err *e)
{
    (void)v, (void)e;
    return MO(d)->out.base.allow_new = 1, 0;
}

static int set_allow_partial(void *d, const char *v, struct hb_err *e)
{
    (void)v, (void)e;
    return MO(d)->allow_partial = 1, 0;
}

static const struct cli_opt merge_table[] = {
    {"junit", 0, "FILE", set_junit, "the merged JUnit XML"},
    {"json", 0, "FILE", set_json, "the merged JSON lines"},
    {"html", 0, "FILE", set_html, "the merged page"},
    {"csv", 0, "FILE", set_csv, "the merged results, one line each, as run --csv"},
    {"record", 0, "FILE", set_record, "write the merged run as a baseline"},
    {"compare", 0, "FILE", set_compare, "the upgrade gate on the merged run (not per shard)"},
    {"fail-on-bit-change", 0, NULL, set_bits, "with --compare: changed output bits fail"},
    {"perf-threshold", 0, "PCT", set_perf, "with --compare: slower by more than PCT percent fails"},
    {"allow-new", 0, NULL, set_allow_new, "with --compare: results the baseline lacks are reported, not an error"},
    {"allow-partial", 0, NULL, set_allow_partial, "merge the shards given even if some of a split are missing"},
    {NULL, 0, NULL, NULL, NULL},
};

static const char merge_usage[] =
    "usage: harness merge [options] SHARD.jsonl...\n"
    "Joins the JSON lines of --shard runs into the report, summary and exit code one unsharded\n"
    "run would give. Each input must be a whole --json file (header, results, end record); with\n"
    "--shard i/n inputs, every shard once (--allow-partial: some may be missing).\n"
    "exit codes: 0 every verdict acceptable; 1 a FAIL, XPASS or ERROR, or the gate failed; 2 bad\n"
    "usage or an unreadable input\n";

int merge_main(int full_argc, char **full_argv)
{
    int argc = full_argc - 1;
    char **argv = full_argv + 1;
    struct merge_opts o;
    memset(&o, 0, sizeof o);
    base_opts_init(&o.out.base);
    struct hb_err err = {{0}};
    int first, rc = cli_parse(argc, argv, merge_usage, merge_table, &o, &first, &err);
    if (!rc && first == argc)
        rc = -1, err_set(&err, "no input files (see harness merge --help)");
    if (rc) {
        if (rc < 0)
            fprintf(stderr, "harness: merge: %s\n", err.msg);
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    }
    const char *names[] = {"--json", "--junit", "--html", "--record", "--csv"};
    const char *paths[] = {o.json, o.junit, o.out.html, o.out.record, o.out.csv};
    if (out_distinct(names, paths, 5, &err)) {
        fprintf(stderr, "harness: merge: %s\n", err.msg);
        return EXIT_USAGE;
    }
    o.inputs = (const char **)(argv + first);
    o.n_inputs = argc - first;
    return merge_files(&o);
}
