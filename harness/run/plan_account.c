/* SPDX-License-Identifier: MIT */
/* plan_account.c: what a run owes its reports beyond its cases. A listed kernel that no case
 * of the catalogue can run (its custom sizes, its `cases` glob, its op) would otherwise leave
 * no trace: plan.c gives it a group whose one row says why. And the run's selection, hashed,
 * goes into the header, so `harness merge` can refuse shards of different runs. Chooses no
 * case and runs nothing. */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

void plan_catalogue_name(const struct run_opts *o, char *buf, size_t len)
{
    if (o->cases)
        snprintf(buf, len, "%s", o->cases);
    else
        snprintf(buf, len, "cases/%s.cases", o->tier ? o->tier : "quick");
}

/* A case's size names as its line gives them: "n", "rows cols". */
static void plan_size_names(const struct hb_case *c, char *buf, size_t len)
{
    buf[0] = 0;
    for (int j = 0; j < c->n_sizes; j++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", j ? " " : "", c->sizes[j].name);
}

/* The distinct size-name lists of the custom cases k's glob takes, "n; rows cols", at most
 * three of them (", ..." beyond). */
static void plan_sizes_given(const struct run_ctx *cx, const struct kern_desc *k, char *buf, size_t len)
{
    char seen[3][128];
    int n = 0, more = 0;
    for (int i = 0; i < cx->cases.n; i++) {
        const struct hb_case *c = &cx->cases.c[i];
        if (c->op != k->op || (k->cases && fnmatch(k->cases, c->name, 0)))
            continue;
        char names[128];
        plan_size_names(c, names, sizeof names);
        int dup = 0;
        for (int s = 0; s < n; s++)
            dup |= !strcmp(seen[s], names);
        if (!dup && n == 3)
            more = 1;
        else if (!dup)
            snprintf(seen[n++], sizeof seen[0], "%s", names);
    }
    buf[0] = 0;
    for (int s = 0; s < n; s++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", s ? "; " : "", seen[s][0] ? seen[s] : "none");
    if (more)
        snprintf(buf + strlen(buf), len - strlen(buf), "; ...");
}

char *plan_no_case(const struct run_ctx *cx, const struct kern_desc *k)
{
    /* A shipped kernel on the user's own catalogue is the user's choice of cases; a user's
     * kernel, or any kernel on a tier (every shipped one has cases in each), must run. */
    if (!k->user && cx->o->cases)
        return NULL;
    int of_op = 0, globbed = 0;
    for (int i = 0; i < cx->cases.n; i++) {
        const struct hb_case *c = &cx->cases.c[i];
        if (kern_runs_case(k, c))
            return NULL;
        of_op += c->op == k->op;
        globbed += c->op == k->op && (!k->cases || !fnmatch(k->cases, c->name, 0));
    }
    char catalogue[512], why[1400];
    plan_catalogue_name(cx->o, catalogue, sizeof catalogue);
    const char *op = op_name(k->op);
    if (!of_op) {
        snprintf(why, sizeof why, "never runs: %s has no %s case", catalogue, op);
    } else if (!globbed) {
        snprintf(why, sizeof why, "never runs: its cases glob %s matches no %s case of %s", k->cases, op, catalogue);
    } else { /* only a custom kernel's sizes can fail it past the op and the glob */
        char mine[128] = "", given[400];
        for (int s = 0; s < k->custom->n_sizes; s++)
            snprintf(mine + strlen(mine), sizeof mine - strlen(mine), "%s%s", s ? " " : "", k->custom->sizes[s]);
        plan_sizes_given(cx, k, given, sizeof given);
        snprintf(why, sizeof why, "never runs: no %s case of %s%s%s gives exactly its sizes %s (they give %s)", op,
                 catalogue, k->cases ? " matching its cases glob " : "", k->cases ? k->cases : "", mine, given);
    }
    snprintf(why + strlen(why), sizeof why - strlen(why), "; declared at %s:%d", k->file, k->line);
    return xstrdup(why);
}

/* One piece of the fingerprint, its terminating 0 included: "ab" "c" and "a" "bc" differ. */
static uint64_t fp_text(uint64_t h, const char *s)
{
    s = s ? s : "*";
    return hb_fnv1a_from(h, s, strlen(s) + 1);
}

/* The catalogue's cases that --case leaves, each by name and everything its data follows. */
static uint64_t fp_cases(const struct run_ctx *cx, uint64_t h)
{
    for (int i = 0; i < cx->cases.n; i++) {
        const struct hb_case *c = &cx->cases.c[i];
        if (!plan_case_selected(cx->o, c->name))
            continue;
        char text[1024];
        op_case_fingerprint(c, text, sizeof text);
        h = fp_text(h, text);
    }
    return h;
}

/* The kernels --kernel leaves, by what decides the cases each runs. */
static uint64_t fp_kernels(const struct run_ctx *cx, uint64_t h)
{
    for (int i = 0; i < cx->kernels.n; i++) {
        const struct kern_desc *k = &cx->kernels.k[i];
        if (!plan_kernel_selected(cx->o, k->lang, k->name))
            continue;
        char text[512];
        snprintf(text, sizeof text, "%s/%s %s %s", k->lang, k->name, op_name(k->op), k->cases ? k->cases : "*");
        for (int s = 0; k->custom && s < k->custom->n_sizes; s++)
            snprintf(text + strlen(text), sizeof text - strlen(text), " %s", k->custom->sizes[s]);
        h = fp_text(h, text);
    }
    return h;
}

/* The filters besides --case and --kernel, and what judges: known bugs, schedule, sanitizer. */
static uint64_t fp_options(const struct run_ctx *cx, uint64_t h)
{
    const struct run_opts *o = cx->o;
    char text[64];
    for (int i = 0; i < o->n_backends; i++)
        h = fp_text(h, o->backends[i]);
    for (int i = 0; i < o->n_widths; i++)
        snprintf(text, sizeof text, "w%d", o->widths[i]), h = fp_text(h, text);
    for (int i = 0; i < o->ids.n; i++) {
        const struct sel_id *id = &o->ids.ids[i];
        const char *fields[] = {
            id->backend, id->device, id->width, id->lang, id->kernel, id->case_name, id->exact ? "exact" : "glob"};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
            h = fp_text(h, fields[f]);
    }
    for (int i = 0; i < cx->known.n; i++) {
        const struct known_bug *b = &cx->known.b[i];
        const char *fields[] = {
            b->backend, b->device, b->kernel, b->cases, b->widths, b->reason, b->flaky ? "flaky" : ""};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
            h = fp_text(h, fields[f]);
    }
    h = fp_text(h, o->schedule);
    return fp_text(h, o->sanitize);
}

void plan_fingerprint(const struct run_ctx *cx, char out[17])
{
    uint64_t h = fp_options(cx, fp_kernels(cx, fp_cases(cx, hb_fnv1a("selection", 9))));
    snprintf(out, 17, "%016" PRIx64, h);
}
