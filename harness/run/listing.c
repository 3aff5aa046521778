/* SPDX-License-Identifier: MIT */
/* listing.c: see listing.h. The run's own plan (plan.c) decides, printed instead of run:
 * runs no kernel and makes no reference. */
#include "listing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

static void list_backend(const char *name)
{
    struct probe p;
    prb_probe(name, &p);
    if (p.count < 0) {
        printf("  %-8s %s\n", p.name, p.err);
        return;
    }
    char label[64];
    snprintf(label, sizeof label, "%s%s%s%s", p.name, p.platform[0] ? " (" : "", p.platform,
             p.platform[0] ? " platform)" : "");
    printf("  %-8s runs %s%s%s; %d device(s)%s%s\n", label, p.langs, p.vendor[0] ? "; vendor library " : "", p.vendor,
           p.count, p.count ? "" : ": ", p.count ? "" : (p.err[0] ? p.err : "none found"));
    for (int d = 0; d < p.count; d++) {
        printf("    [%d] %s | %s | %.1f GiB, %u KiB shared/block | widths", d, p.dev[d].name, p.dev[d].driver,
               p.dev[d].global_mem_bytes / 1073741824.0, p.dev[d].shared_mem_per_block / 1024);
        for (int w = 0; w < p.dev[d].n_widths; w++)
            printf(" %d%s%s%s", p.dev[d].widths[w].width, p.dev[d].widths[w].env[0] ? " (" : "", p.dev[d].widths[w].env,
                   p.dev[d].widths[w].env[0] ? ")" : "");
        printf("\n");
    }
}

int list_all(const struct run_opts *o, struct hb_err *err)
{
    struct run_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    if (plan_load(&cx, err)) {
        plan_free(&cx);
        return EXIT_USAGE;
    }
    char names[LDR_MAX][16];
    int n = ldr_known(names);
    printf("Backends\n");
    for (int i = 0; i < n; i++)
        list_backend(names[i]);
    printf("Kernels\n");
    for (int i = 0; i < cx.kernels.n; i++) {
        const struct kern_desc *k = &cx.kernels.k[i];
        char widths[64], expect[128] = "pass";
        kern_widths_str(k, widths, sizeof widths);
        if (k->expect)
            class_names(k->expect, expect, sizeof expect);
        char full[128];
        snprintf(full, sizeof full, "%s/%s", k->lang, k->name);
        printf("  %-30s %-13s block %ux%ux%u widths %-10s expect %-10s %s\n", full, op_name(k->op), k->block[0],
               k->block[1], k->block[2], widths, expect, k->note ? k->note : "");
    }
    printf("Cases: %d in %s; %d known bugs listed\n", cx.cases.n,
           o->cases  ? o->cases
           : o->tier ? o->tier
                     : "quick",
           cx.known.n);
    plan_free(&cx);
    return EXIT_OK;
}

/* Prints the ids of every case of every group that would run; returns how many. A kernel no
 * case can run has no id to print: standard error says so, once (the run's row for it is an
 * ERROR, no-case). */
static int list_groups(const struct group *groups, int n, const struct run_ctx *cx)
{
    int listed = 0;
    for (int i = 0; i < n; i++) {
        const struct group *g = &groups[i];
        int said = 0;
        for (int j = 0; j < i && g->no_case; j++)
            said |= groups[j].k == g->k;
        if (g->no_case && !said)
            fprintf(stderr, "harness: %s/%s %s (a run reports it: %s, no-case)\n", g->k->lang, g->k->name, g->no_case,
                    cx->o->allow_empty ? "SKIP" : "ERROR");
        for (int c = 0; c < g->n_cases; c++) {
            char id[512];
            sel_format(id, sizeof id, g->p->name, g->device, g->width.width, g->k ? g->k->lang : "vendor",
                       g->k ? g->k->name : g->p->vendor, cx->data[g->cases[c]].c->name);
            puts(id);
        }
        listed += g->n_cases;
    }
    return listed;
}

int list_ids(const struct run_opts *o, struct hb_err *err)
{
    struct run_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    struct probe probes[LDR_MAX];
    int no_device, n_probes = 0, listed = 0, code = plan_load(&cx, err) ? EXIT_USAGE : -1;
    if (code < 0 && (n_probes = plan_probe(o, probes, err, &no_device)) < 0)
        code = no_device ? EXIT_NO_DEVICE : EXIT_USAGE;
    if (code < 0 && plan_check_selection(&cx, probes, n_probes, err))
        code = EXIT_USAGE; /* as the run says it */
    if (code < 0) {
        plan_select_cases(&cx, NULL, probes, n_probes);
        struct group *groups;
        int n_groups = plan_groups(&cx, probes, n_probes, &groups);
        listed = list_groups(groups, n_groups, &cx);
        plan_free_groups(groups, n_groups);
        /* As a run that runs nothing, a listing of nothing is no success. */
        if (!listed)
            fprintf(stderr, "harness: nothing would run (no kernel, case and device matched)\n");
        code = listed ? EXIT_OK : EXIT_FAILURES;
    }
    plan_free(&cx);
    return code;
}
