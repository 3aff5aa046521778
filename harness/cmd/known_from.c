/* SPDX-License-Identifier: MIT */
/* known_from.c: `harness known-bugs --from RUN.jsonl`: a known-bug list drafted from a triaged
 * run, one entry per FAIL or ERROR result (XPASS is the harness missing a bug, not a driver's),
 * in the format --known-bugs reads (cases/known-bugs). Each reason says TRIAGE: the list is a
 * draft for a person to cut to the driver and toolkit bugs and explain; it decides nothing. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jsonl.h"
#include "run.h"

struct known_from_opts {
    const char *from, *output;
};

static int set_from(void *d, const char *v, struct hb_err *e)
{
    (void)e;
    return ((struct known_from_opts *)d)->from = v, 0;
}

static int set_output(void *d, const char *v, struct hb_err *e)
{
    (void)e;
    return ((struct known_from_opts *)d)->output = v, 0;
}

static const struct cli_opt known_from_table[] = {
    {"from", 0, "FILE", set_from, "the run's --json FILE (a whole run: its header and end record)"},
    {"output", 'o', "FILE", set_output, "write the list there (default: standard output)"},
    {NULL, 0, NULL, NULL, NULL},
};

static const char known_from_usage[] =
    "usage: harness known-bugs --from RUN.jsonl [-o FILE]\n"
    "Drafts a known-bug list (--known-bugs FILE adds it to cases/known-bugs) with an entry for each\n"
    "FAIL and ERROR result of the run; keep the driver and toolkit bugs, say why, delete the rest.\n";

/* A name as a glob token: spaces (device names have them) become '*'. */
static void known_glob(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == ' ' || *s == '\t' ? '*' : *s, out);
}

static void known_entry_line(FILE *out, const struct rep_result *r)
{
    fprintf(out, "%s ", r->backend);
    known_glob(out, r->device);
    fprintf(out, " %s/%s ", r->lang, r->kernel);
    known_glob(out, r->case_name);
    char classes[128], why[160];
    class_names(r->cmp.classes, classes, sizeof classes);
    snprintf(why, sizeof why, "%.*s", (int)strcspn(r->why, "\n"), r->why);
    fprintf(out, " width=%d TRIAGE: %s %s%s%s\n", r->width, verdict_name(r->verdict), classes, why[0] ? ": " : "", why);
}

static int known_write(FILE *out, const struct jsonl_run *run, const char *from)
{
    fprintf(out, "# Known bugs drafted from %s (%s, %s)\n# %s\n", from, run->header.harness, run->header.start,
            run->header.command);
    fputs("# Triage: keep the lines that are driver or toolkit bugs, replace TRIAGE with why.\n"
          "# --known-bugs refuses this file while a line still says TRIAGE.\n",
          out);
    int n = 0;
    for (int i = 0; i < run->n; i++)
        if (run->results[i].verdict == V_FAIL || run->results[i].verdict == V_ERROR)
            known_entry_line(out, &run->results[i]), n++;
    return n;
}

int known_bugs_command(int argc, char **argv)
{
    struct known_from_opts o = {NULL, NULL};
    struct hb_err err = {{0}};
    int first, rc = cli_parse(argc, argv, known_from_usage, known_from_table, &o, &first, &err);
    if (rc)
        return rc < 0 ? (fprintf(stderr, "harness: %s\n", err.msg), EXIT_USAGE) : EXIT_OK;
    if (!o.from || first < argc) {
        fprintf(stderr, "harness: known-bugs needs --from RUN.jsonl and nothing else (see known-bugs --help)\n");
        return EXIT_USAGE;
    }
    struct jsonl_run run;
    const char *why = NULL;
    if (jsonl_read_run(o.from, &run, &err))
        return fprintf(stderr, "harness: %s\n", err.msg), EXIT_USAGE;
    if ((why = jsonl_run_incomplete(&run))) {
        fprintf(stderr, "harness: %s: %s: a draft from part of a run would miss its bugs\n", o.from, why);
        jsonl_run_free(&run);
        return EXIT_USAGE;
    }
    FILE *out = o.output ? out_open(o.output) : stdout;
    int n = out ? known_write(out, &run, o.from) : -1;
    int bad = !out || ferror(out) || (out != stdout && fclose(out));
    jsonl_run_free(&run);
    if (bad)
        return fprintf(stderr, "harness: %s: cannot write\n", o.output), EXIT_USAGE;
    fprintf(stderr, "harness: %d entries to triage\n", n);
    return EXIT_OK;
}
