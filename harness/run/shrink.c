/* SPDX-License-Identifier: MIT */
/* shrink.c: --shrink. For a failing case, the smallest sizes that still fail with the same
 * verdict and classes, as property-based testing tools shrink a counterexample: rounds of
 * candidates (one size set to 1, halved or less one; seed, distribution, scalars and padding kept) run as
 * the case's group, supervised as in the run. Trials go to their own sink: no result of the
 * run changes; the outcome is printed as its own reproducer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "runner.h"

#define SHRINK_MAX_TARGETS 8       /* failing cases shrunk per run: one per group and class */
#define SHRINK_MAX_ROUNDS 64       /* each round at least halves or decrements a size */
#define SHRINK_DIMS CASE_MAX_SIZES /* the op's shrink_keys, or every size of the case */
#define SHRINK_MAX_CANDIDATES (3 * SHRINK_DIMS)

/* The failure to keep, and the case being shrunk. */
struct shrink_goal {
    enum hb_verdict verdict;
    unsigned classes;
    struct hb_case best;
    int rounds, trials;
};

/* The sizes the op shrinks (op_desc.shrink_keys: M N K of sgemm, all of them else), by index
 * into c's sizes. */
static int shrink_dims(const struct hb_case *c, int dims[SHRINK_DIMS])
{
    const char *keys = op_get(c->op)->shrink_keys;
    int n = 0;
    for (int i = 0; i < c->n_sizes; i++)
        if (!keys || op_word_listed(keys, c->sizes[i].name))
            dims[n++] = i;
    return n;
}

/* How large a case is for the shrink: the product of its shrinking sizes, then their sum. */
static double shrink_size(const struct hb_case *c)
{
    int dims[SHRINK_DIMS], n = shrink_dims(c, dims);
    double product = 1, sum = 0;
    for (int d = 0; d < n; d++)
        product *= (double)c->sizes[dims[d]].value, sum += (double)c->sizes[dims[d]].value;
    return product + sum;
}

/* The shrunk case's name: the original's with the sizes it still fails at, "_shrunk_4x7", so a
 * kernel's `cases` glob still accepts it. */
static void shrink_name(const struct hb_case *c, const char *orig, char *buf, size_t len)
{
    int dims[SHRINK_DIMS], n_dims = shrink_dims(c, dims);
    size_t n = (size_t)snprintf(buf, len, "%.60s_shrunk", orig);
    for (int d = 0; d < n_dims && n < len; d++)
        n += (size_t)snprintf(buf + n, len - n, "%c%ld", d ? 'x' : '_', c->sizes[dims[d]].value);
}

/* The sizes it still fails at, as a line gives them: "M=3 N=4 K=5". */
static void shrink_sizes_text(const struct hb_case *c, char *buf, size_t len)
{
    int dims[SHRINK_DIMS], n_dims = shrink_dims(c, dims);
    struct case_size shrunk[SHRINK_DIMS];
    for (int d = 0; d < n_dims; d++)
        shrunk[d] = c->sizes[dims[d]];
    case_sizes_text(shrunk, n_dims, buf, len);
}

/* One catalogue line for c: every size, the scalars the original line gave, its data. */
static void shrink_line(const struct hb_case *c, const char *orig, char *buf, size_t len)
{
    char name[128], sizes[256];
    shrink_name(c, orig, name, sizeof name);
    case_sizes_text(c->sizes, c->n_sizes, sizes, sizeof sizes);
    int n = snprintf(buf, len, "%s %s %s", op_name(c->op), name, sizes);
    for (int i = 0; i < c->n_scalars; i++)
        if (c->scalars[i].given)
            n += snprintf(buf + n, len - (size_t)n, " %s=%.9g", c->scalars[i].name, (double)c->scalars[i].value);
    n += snprintf(buf + n, len - (size_t)n, " dist=%s seed=%llu", case_dist_name(c->dist), (unsigned long long)c->seed);
    static const char *const specials[] = {"nan", "inf", "negzero", "subnormal"};
    for (unsigned i = 0, first = 1; i < 4; i++)
        if (c->specials & (1u << i)) {
            n += snprintf(buf + n, len - (size_t)n, "%s%s", first ? " special=" : ",", specials[i]);
            first = 0;
        }
}

static int shrink_by_size(const void *a, const void *b)
{
    double x = shrink_size(a), y = shrink_size(b);
    return x < y ? -1 : x > y;
}

/* The next candidates from sg->best, smallest first; returns how many. */
static int shrink_candidates(const struct shrink_goal *sg, struct hb_case out[SHRINK_MAX_CANDIDATES])
{
    const struct hb_case *base = &sg->best;
    void (*follow)(const struct hb_case *, struct hb_case *) = op_get(base->op)->shrink_follow;
    int dims[SHRINK_DIMS], n_dims = shrink_dims(base, dims), n = 0;
    for (int d = 0; d < n_dims; d++) {
        long v = base->sizes[dims[d]].value, tries[3] = {1, v / 2, v - 1};
        for (int t = 0; t < 3; t++) {
            if (tries[t] < 1 || tries[t] >= v || (t && tries[t] == tries[t - 1]) || (t == 2 && tries[2] == 1))
                continue;
            out[n] = *base;
            out[n].sizes[dims[d]].value = tries[t];
            if (follow)
                follow(base, &out[n]);
            n++;
        }
    }
    qsort(out, (size_t)n, sizeof *out, shrink_by_size);
    return n;
}

/* Runs one round: the group on the candidates. Returns the index of the smallest candidate
 * that failed the same way, or -1. */
static int shrink_round(struct run_ctx *cx, const struct group *g, struct shrink_goal *sg, const char *orig)
{
    struct hb_case cand[SHRINK_MAX_CANDIDATES];
    int n = shrink_candidates(sg, cand), found = -1;
    if (!n)
        return -1;
    char *text = xcalloc((size_t)n, 512);
    for (int i = 0; i < n; i++) {
        shrink_line(&cand[i], orig, text + strlen(text), 510);
        strcat(text, "\n");
    }
    struct run_opts quiet = *cx->o;
    quiet.quiet = 1;
    struct run_ctx sc = *cx;
    sc.o = &quiet;
    sc.silent = 1;
    memset(&sc.cases, 0, sizeof sc.cases);
    struct hb_err err = {{0}};
    if (case_parse_text("shrink", text, &sc.cases, &err) || rep_open(&sc.sink, NULL, NULL, NULL, &err)) {
        fprintf(stderr, "harness: shrink: %s\n", err.msg);
        free(text);
        case_set_free(&sc.cases);
        return -1;
    }
    sc.data = xcalloc((size_t)sc.cases.n, sizeof *sc.data);
    struct group tg = *g;
    tg.ordinal = 0, tg.first_of_width = 0;
    tg.cases = xcalloc((size_t)sc.cases.n, sizeof *tg.cases);
    tg.n_cases = 0;
    for (int i = 0; i < sc.cases.n; i++) {
        sc.data[i].c = &sc.cases.c[i];
        sc.data[i].used = 1;
        op_prepare(&sc.data[i], &sc.kernels, 1);
        tg.cases[tg.n_cases++] = i;
    }
    sched_run(sched_start(&sc, &tg, 1, 0));
    sg->trials += n;
    for (int i = 0; i < sc.sink.n; i++) {
        const struct rep_result *r = &sc.sink.all[i];
        int at = r->group_row ? -1 : case_set_find(&sc.cases, r->case_name);
        if (at >= 0 && r->verdict == sg->verdict && r->cmp.classes == sg->classes &&
            (found < 0 || shrink_size(&sc.cases.c[at]) < shrink_size(&sc.cases.c[found])))
            found = at;
    }
    if (found >= 0)
        sg->best = sc.cases.c[found];
    for (int i = 0; i < sc.cases.n; i++)
        op_release(&sc.data[i]);
    free(sc.data), free(tg.cases), free(text);
    rep_close(&sc.sink);
    case_set_free(&sc.cases);
    return found;
}

/* The command that reruns the shrunk case: its catalogue line written to a file, then the run
 * of exactly that result. */
static void shrink_print(const struct run_ctx *cx, const struct group *g, const struct shrink_goal *sg,
                         const struct rep_result *r)
{
    char line[512], id[512], classes[128];
    shrink_line(&sg->best, r->case_name, line, sizeof line);
    sel_format(id, sizeof id, g->p->name, g->device, g->width.width, r->lang, r->kernel, r->case_name);
    class_names(sg->classes, classes, sizeof classes);
    printf("shrink: %s %s %s: ", id, verdict_name(sg->verdict), classes);
    if (!sg->rounds) {
        printf("no smaller size fails the same way (%d trial cases)\n", sg->trials);
        return;
    }
    const struct hb_case *b = &sg->best;
    char sizes[256];
    shrink_sizes_text(b, sizes, sizeof sizes);
    printf("still fails at %s (%d rounds, %d trial cases)\n", sizes, sg->rounds, sg->trials);
    /* The run's own reproducer (quoting, manifests, guard bands, schedule), over a catalogue
     * of the one shrunk line. */
    struct run_header *h = xcalloc(1, sizeof *h);
    *h = cx->sink.hdr;
    snprintf(h->cases, sizeof h->cases, "shrunk.cases");
    struct rep_result shrunk = *r;
    shrink_name(b, r->case_name, shrunk.case_name, sizeof shrunk.case_name);
    char *cmd = rep_reproducer_text(&shrunk, h);
    printf("  reproduce: printf '%%s\\n' '%s' > shrunk.cases && %s\n", line, cmd);
    free(cmd);
    free(h);
}

/* The group r came from, rebuilt from this run's probes and kernels; 0, or -1 when it cannot
 * be (a backend or kernel no longer there). Devices of one model share a name: the first of
 * them (or --device) stands for all. */
static int shrink_group(const struct run_ctx *cx, const struct probe *probes, int n_probes, const struct rep_result *r,
                        struct group *g)
{
    memset(g, 0, sizeof *g);
    for (int b = 0; b < n_probes && !g->p; b++)
        if (!strcmp(probes[b].name, r->backend))
            g->p = &probes[b], g->slot = b;
    if (!g->p)
        return -1;
    g->device = -1;
    for (int dv = 0; dv < g->p->count && g->device < 0; dv++)
        if (!strcmp(g->p->dev[dv].name, r->device) && (cx->o->device < 0 || cx->o->device == dv))
            g->device = dv;
    for (int w = 0; g->device >= 0 && w < g->p->dev[g->device].n_widths; w++)
        if (g->p->dev[g->device].widths[w].width == r->width)
            g->width = g->p->dev[g->device].widths[w];
    if (g->device < 0 || !g->width.width)
        return -1;
    if (!strcmp(r->lang, "vendor"))
        return 0;
    for (int k = 0; k < cx->kernels.n && !g->k; k++)
        if (!strcmp(cx->kernels.k[k].lang, r->lang) && !strcmp(cx->kernels.k[k].name, r->kernel))
            g->k = &cx->kernels.k[k];
    return g->k ? 0 : -1;
}

/* Whether r is a failure to shrink and none like it (same group, verdict and classes) came
 * before it. A hang is not shrunk: every trial would wait out the timeout. */
static int shrink_wanted(const struct rep_sink *s, int i)
{
    const struct rep_result *r = &s->all[i];
    if (r->group_row || (r->verdict != V_FAIL && r->verdict != V_XFAIL && r->verdict != V_ERROR) ||
        (r->cmp.classes & CLS_TIMEOUT))
        return 0;
    for (int j = 0; j < i; j++) {
        const struct rep_result *q = &s->all[j];
        if (q->verdict == r->verdict && q->cmp.classes == r->cmp.classes && q->width == r->width &&
            !strcmp(q->backend, r->backend) && !strcmp(q->device, r->device) && !strcmp(q->lang, r->lang) &&
            !strcmp(q->kernel, r->kernel))
            return 0;
    }
    return 1;
}

void shrink_failures(struct run_ctx *cx, const struct probe *probes, int n_probes)
{
    int done = 0, left = 0;
    for (int i = 0; i < cx->sink.n && !intr_signal; i++) {
        const struct rep_result *r = &cx->sink.all[i];
        struct group g;
        int at = case_set_find(&cx->cases, r->case_name);
        if (!shrink_wanted(&cx->sink, i) || at < 0 || shrink_group(cx, probes, n_probes, r, &g))
            continue;
        if (done == SHRINK_MAX_TARGETS) {
            left++;
            continue;
        }
        struct shrink_goal sg;
        memset(&sg, 0, sizeof sg);
        sg.verdict = r->verdict, sg.classes = r->cmp.classes, sg.best = cx->cases.c[at];
        while (sg.rounds < SHRINK_MAX_ROUNDS && !intr_signal && shrink_round(cx, &g, &sg, r->case_name) >= 0)
            sg.rounds++;
        shrink_print(cx, &g, &sg, r);
        done++;
    }
    if (left)
        printf("shrink: %d more failing groups not shrunk (at most %d a run): select them with --id\n", left,
               SHRINK_MAX_TARGETS);
}
