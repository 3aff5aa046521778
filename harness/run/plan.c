/* SPDX-License-Identifier: MIT */
/* plan.c: what a conformance run runs. Reads the manifests, cases and known bugs; probes the
 * backends (in child processes); marks the cases the selected kernels and shard use, checks
 * they fit host and devices (plan_memory.c; their data and references are plan_prepare.c's) and lists the
 * groups with their estimated work. Runs nothing on a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "guard.h"
#include "runner.h"

/* The tier's catalogue, or --cases. */
static char *plan_cases_path(const struct run_opts *o, struct hb_err *err)
{
    if (o->cases)
        return xstrdup(o->cases);
    const char *tier = o->tier ? o->tier : "quick";
    if (strcmp(tier, "quick") && strcmp(tier, "standard") && strcmp(tier, "nightly")) {
        err_set(err, "unknown tier '%s' (quick, standard, nightly)", tier);
        return NULL;
    }
    char rel[64];
    snprintf(rel, sizeof rel, "cases/%s.cases", tier);
    return path_join(path_root_dir(), rel);
}

/* Rows, reports and baselines know a kernel by language and name: two kernels of one name
 * from different manifests (a user's sgemm_naive beside the shipped one) would merge into
 * one row and one baseline key, so that is an error that names both. */
static int plan_unique_names(const struct kern_set *ks, struct hb_err *err)
{
    for (int i = 0; i < ks->n; i++)
        for (int j = 0; j < i; j++) {
            const struct kern_desc *a = &ks->k[j], *b = &ks->k[i];
            if (strcmp(a->name, b->name) || strcmp(a->lang, b->lang))
                continue;
            err_set(err,
                    "%s:%d: kernel [%s] (%s) has the name of the kernel at %s:%d: rename one (results and "
                    "baselines know kernels by language and name), or run only yours with --only-manifest",
                    b->file, b->line, b->name, b->lang, a->file, a->line);
            return -1;
        }
    return 0;
}

int plan_load(struct run_ctx *cx, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    if (!o->no_builtin) {
        char *dir = path_join(path_root_dir(), "kernels");
        int rc = kern_discover(dir, &cx->kernels, err);
        free(dir);
        if (rc)
            return -1;
    }
    for (int i = 0; i < o->n_manifests; i++) {
        int before = cx->kernels.n;
        if (kern_parse_file(o->manifests[i], &cx->kernels, err))
            return -1;
        for (int k = before; k < cx->kernels.n; k++)
            cx->kernels.k[k].user = 1;
    }
    if (plan_unique_names(&cx->kernels, err) || cus_resolve(&cx->kernels, err))
        return -1;
    kern_link_siblings(&cx->kernels);
    cus_set_oracle_runner(orc_run);
    char *cases_path = plan_cases_path(o, err);
    if (!cases_path)
        return -1;
    int rc = case_parse_file(cases_path, &cx->cases, err);
    free(cases_path);
    if (rc)
        return rc;
    /* --known-bugs adds to the shipped list, and must exist: a mistyped path is no silent
     * empty list. */
    char *known_path = path_join(path_root_dir(), "cases/known-bugs");
    rc = known_parse_file(known_path, 0, &cx->known, err);
    free(known_path);
    return rc || !o->known_bugs ? rc : known_parse_file(o->known_bugs, 1, &cx->known, err);
}

void plan_free(struct run_ctx *cx)
{
    for (int i = 0; cx->data && i < cx->cases.n; i++)
        if (cx->data[i].used)
            op_release(&cx->data[i]);
    arena_free(cx->data);
    cx->data = NULL;
    case_set_free(&cx->cases);
    kern_set_free(&cx->kernels);
    known_free(&cx->known);
}

/* --device K where backends have devices, but none a device K, can never run: a usage error
 * (with no device at all, the run says "nothing ran" as it would without --device). */
static int plan_check_device(const struct run_opts *o, const struct probe *probes, int n, struct hb_err *err)
{
    char counts[256] = "";
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (o->device < probes[i].count)
            return 0;
        any |= probes[i].count > 0;
        snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%s has %d", i ? ", " : "", probes[i].name,
                 probes[i].count > 0 ? probes[i].count : 0);
    }
    if (!any)
        return 0;
    err_set(err, "--device %d: no selected backend has that device (%s; devices count from 0)", o->device, counts);
    return -1;
}

int plan_probe(const struct run_opts *o, struct probe *probes, struct hb_err *err, int *no_device)
{
    char names[LDR_MAX][16];
    int n = ldr_known(names), count = 0;
    *no_device = 0;
    for (int b = 0; b < o->n_backends; b++)
        if (ldr_check_known(o->backends[b], err))
            return -1;
    struct hb_err none = {{0}};
    if (ldr_check_any(&none)) { /* a run with no backend to probe would say only that nothing ran */
        err_set(err, "no backend to run: %s", none.msg);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (!plan_backend_selected(o, names[i]))
            continue;
        prb_probe(names[i], &probes[count]);
        struct probe *p = &probes[count++];
        if (p->count <= 0) {
            const char *why = p->count < 0 ? p->err : p->err[0] ? p->err : "no device found";
            /* A backend asked for by name must run: a gate on the wrong runner fails. */
            if (o->n_backends) {
                err_set(err, "backend %s: no usable device: %s", p->name, why);
                *no_device = 1;
                return -1;
            }
            /* --list keeps stdout for ids alone. */
            fprintf(o->list ? stderr : stdout, "  backend %s skipped: %s\n", p->name, why);
        }
    }
    return plan_check_device(o, probes, count, err) ? -1 : count;
}

int plan_select_cases(struct run_ctx *cx, const struct kern_desc *only, const struct probe *probes, int n_probes)
{
    const struct run_opts *o = cx->o;
    cx->data = arena_calloc((size_t)cx->cases.n + 1, sizeof *cx->data);
    int selected = 0, shard_ordinal = 0;
    for (int i = 0; i < cx->cases.n; i++) {
        struct case_data *d = &cx->data[i];
        d->c = &cx->cases.c[i];
        if (!plan_case_selected(o, d->c->name))
            continue;
        for (int k = 0; k < cx->kernels.n; k++) {
            const struct kern_desc *kd = &cx->kernels.k[k];
            d->used |= kern_runs_case(kd, d->c) && plan_kernel_selected(o, kd->lang, kd->name) &&
                       plan_id_selected(o, NULL, -1, kd->lang, kd->name, d->c->name);
        }
        /* The vendor library's name comes with the probe (--kernel vendor/cublas selects it). */
        d->used |= op_get(d->c->op)->vendor && plan_vendor_selected(o, probes, n_probes, d->c->name);
        /* Shards take every n-th case of the catalogue: deterministic, and each shard
         * gets its share of every size and distribution. */
        if (d->used && o->shards && shard_ordinal++ % o->shards != o->shard)
            d->used = 0;
        if (only && !kern_runs_case(only, d->c))
            d->used = 0;
        selected += d->used;
    }
    return selected;
}

/* Work of one case in about a fast device's multiply-adds in the same time: its multiply-adds,
 * its elements (made, copied, checked on the host: 200 each) and what any case costs (two
 * launches, host images, a row: 5 ms on the H200). For the order and the cuts only. */
double plan_case_cost(const struct hb_case *c)
{
    double fixed = 5e8, element = 200, madds, elements;
    op_get(c->op)->work(c, &madds, &elements);
    return fixed + madds + element * elements;
}

/* What a second of waiting and a worker's restart weigh against a case's multiply-adds, for
 * the order only: about what a fast device does in that time. */
#define PLAN_COST_PER_SECOND 1e11
#define PLAN_COST_PER_RESTART 3e10

int plan_width_runs(const struct run_opts *o, const struct probe *p, int dv, int w)
{
    struct sel_key key = {p->name, dv, p->dev[dv].name, p->dev[dv].widths[w].width, NULL, NULL, NULL};
    return (o->device < 0 || o->device == dv) && plan_width_selected(o, key.width) && sel_match(&o->ids, &key);
}

void plan_group_cases(const struct run_ctx *cx, struct group *g)
{
    g->cases = xcalloc((size_t)cx->cases.n + 1, sizeof *g->cases);
    g->n_cases = 0;
    g->cost = g->bytes = 0;
    struct sel_key key = {g->p->name,
                          g->device,
                          g->p->dev[g->device].name,
                          g->width.width,
                          g->k ? g->k->lang : "vendor",
                          g->k ? g->k->name : g->p->vendor,
                          NULL};
    for (int i = 0; i < cx->cases.n; i++) {
        const struct case_data *d = &cx->data[i];
        key.case_name = d->c->name;
        if (!d->used || !(g->k ? kern_runs_case(g->k, d->c) : op_get(d->c->op)->vendor) ||
            !sel_match(&cx->o->ids, &key))
            continue;
        g->cases[g->n_cases++] = i;
        g->cost += plan_case_cost(d->c);
        double bytes = plan_case_bytes(d->c, &cx->kernels) + 6.0 * (double)grd_band();
        if (bytes > g->bytes)
            g->bytes = bytes;
    }
    /* A canary that hangs waits out its timeout, and one that crashes or breaks its context
     * needs a fresh worker (a new device context) for each case, one after another: start
     * them first, or they end the run alone. */
    unsigned expect = g->k ? g->k->expect : 0;
    if (expect & CLS_TIMEOUT)
        g->cost += PLAN_COST_PER_SECOND * (double)(g->k->timeout_s ? g->k->timeout_s : (long)cx->o->timeout_s);
    if (expect & (CLS_CRASH | CLS_API))
        g->cost += PLAN_COST_PER_RESTART * g->n_cases;
}

/* The groups of one device at one width: the vendor library first (a second oracle), then
 * the kernels in manifest order. A group without cases is a row that says why, or nothing: a
 * kernel no case of the catalogue can run (plan_no_case) and one only a race detector judges,
 * in a run without one, say so; one the filters (--case, --id, --shard) left without a case
 * is none, not even a SKIP row. */
static void plan_width_groups(struct run_ctx *cx, const struct group *proto, struct group **out, int *n, int *cap)
{
    const struct run_opts *o = cx->o;
    const struct probe *p = proto->p;
    int first = 1;
    for (int k = -1; k < cx->kernels.n; k++) {
        struct group g = *proto;
        if (k >= 0) {
            g.k = &cx->kernels.k[k];
            if (!plan_lang_listed(p->langs, g.k->lang) || !plan_kernel_selected(o, g.k->lang, g.k->name))
                continue;
        } else if (!p->vendor[0] || o->sanitize || !plan_kernel_selected(o, "vendor", p->vendor)) {
            continue;
        }
        plan_group_cases(cx, &g);
        if (!g.n_cases && !(g.k && (g.no_case = plan_no_case(cx, g.k)))) {
            free(g.cases);
            continue;
        }
        g.skip_racecheck = !g.no_case && g.k && g.k->needs_racecheck && !plan_race_detector(o);
        if (g.skip_racecheck)
            g.n_cases = 0;
        *out = xgrow(*out, *n, cap, sizeof **out);
        g.ordinal = *n, g.first_of_width = first, g.parts = 1;
        first = 0;
        (*out)[(*n)++] = g;
    }
}

int plan_groups(struct run_ctx *cx, const struct probe *probes, int n_probes, struct group **out)
{
    const struct run_opts *o = cx->o;
    int n = 0, cap = 0, key = 0;
    *out = NULL;
    for (int b = 0; b < n_probes; b++) {
        const struct probe *p = &probes[b];
        for (int dv = 0; dv < p->count; dv++)
            for (int w = 0; w < p->dev[dv].n_widths; w++) {
                if (!plan_width_runs(o, p, dv, w))
                    continue;
                struct group proto;
                memset(&proto, 0, sizeof proto);
                proto.p = p, proto.slot = b, proto.device = dv, proto.width = p->dev[dv].widths[w];
                proto.key = key++;
                plan_width_groups(cx, &proto, out, &n, &cap);
            }
    }
    return n;
}

void plan_free_groups(struct group *groups, int n)
{
    for (int i = 0; i < n; i++) {
        free(groups[i].cases);
        free(groups[i].no_case);
    }
    free(groups);
}
