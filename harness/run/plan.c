/* plan.c: what a conformance run runs. Reads the manifests, cases and known bugs; probes the
 * backends (in child processes); marks the cases the selected kernels and shard use, checks
 * they fit host and devices, makes their inputs and references once (on several threads; the
 * inputs where every worker reads them, the references where only this process does: arena.h)
 * and lists the groups with their estimated work. Runs nothing on a device. */
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "guard.h"
#include "ref.h"
#include "runner.h"
#include "trace.h"

int plan_lang_listed(const char *langs, const char *lang)
{
    size_t n = strlen(lang);
    for (const char *p = langs; (p = strstr(p, lang)); p += n)
        if ((p == langs || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

int plan_race_detector(const struct run_opts *o) { return o->sanitize && !strcmp(o->sanitize, "racecheck"); }

/* sel_match on what is known so far; the rest of the key matches anything. */
static int plan_asked(const struct run_opts *o, const char *backend, int width, const char *lang, const char *kernel,
                      const char *case_name)
{
    struct sel_key key = {backend, -1, NULL, width, lang, kernel, case_name};
    return sel_match(&o->ids, &key);
}

int plan_width_selected(const struct run_opts *o, int w)
{
    if (!plan_asked(o, NULL, w, NULL, NULL, NULL))
        return 0;
    if (!o->n_widths)
        return 1;
    for (int i = 0; i < o->n_widths; i++)
        if (o->widths[i] == w)
            return 1;
    return 0;
}

int plan_kernel_selected(const struct run_opts *o, const char *lang, const char *name)
{
    if (!plan_asked(o, NULL, -1, lang, name, NULL))
        return 0;
    if (!o->n_kernel_globs)
        return 1;
    char full[128];
    snprintf(full, sizeof full, "%s/%s", lang, name);
    for (int i = 0; i < o->n_kernel_globs; i++)
        if (!fnmatch(o->kernel_globs[i], name, 0) || !fnmatch(o->kernel_globs[i], full, 0))
            return 1;
    return 0;
}

int plan_case_selected(const struct run_opts *o, const char *name)
{
    for (int i = 0; i < o->n_case_globs; i++)
        if (!fnmatch(o->case_globs[i], name, 0))
            return 1;
    return !o->n_case_globs;
}

int plan_backend_selected(const struct run_opts *o, const char *name)
{
    if (!plan_asked(o, name, -1, NULL, NULL, NULL))
        return 0;
    for (int i = 0; i < o->n_backends; i++)
        if (!strcmp(o->backends[i], name))
            return 1;
    return !o->n_backends;
}

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
    if (plan_unique_names(&cx->kernels, err))
        return -1;
    char *cases_path = plan_cases_path(o, err);
    if (!cases_path)
        return -1;
    int rc = case_parse_file(cases_path, &cx->cases, err);
    free(cases_path);
    if (rc)
        return rc;
    char *known_path = o->known_bugs ? xstrdup(o->known_bugs) : path_join(path_root_dir(), "cases/known-bugs");
    rc = known_parse_file(known_path, &cx->known, err);
    free(known_path);
    return rc;
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
        if (!ldr_is_known(o->backends[b])) {
            char list[LDR_MAX * (sizeof names[0] + 2)] = "";
            size_t used = 0;
            for (int i = 0; i < n; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
            err_set(err, "unknown backend '%s' (known: %s)", o->backends[b], list);
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

/* Whether the vendor library of some probed backend is selected for case `name`. */
static int plan_vendor_asked(const struct run_opts *o, const struct probe *probes, int n_probes, const char *name)
{
    for (int b = 0; b < n_probes; b++)
        if (probes[b].vendor[0] && plan_kernel_selected(o, "vendor", probes[b].vendor) &&
            plan_asked(o, NULL, -1, "vendor", probes[b].vendor, name))
            return 1;
    return 0;
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
                       plan_asked(o, NULL, -1, kd->lang, kd->name, d->c->name);
        }
        /* The vendor library's name comes with the probe (--kernel vendor/cublas selects it). */
        d->used |= d->c->op == OP_SGEMM && plan_vendor_asked(o, probes, n_probes, d->c->name);
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
    double fixed = 5e8, element = 200;
    if (!op_is_gemm(c->op))
        return fixed + element * (double)c->n;
    double elements = (double)c->M * c->K + (double)c->K * c->N + (double)c->M * c->N;
    return fixed + (double)c->M * c->N * c->K + element * elements;
}

/* What a second of waiting and a worker's restart weigh against a case's multiply-adds, for
 * the order only: about what a fast device does in that time. */
#define PLAN_COST_PER_SECOND 1e11
#define PLAN_COST_PER_RESTART 3e10

struct plan_pool {
    struct run_ctx *cx;
    int *order, n;
    pthread_mutex_t lock;
    int lo, hi; /* the cases of `order` nobody has taken yet */
    pthread_t threads[64];
    int joinable, started, blas; /* threads made; threads that have begun */
    double t0, ms;               /* ms: when the last case was done, from t0 */
};

/* The next case for a thread that takes the largest (or, `small`, the smallest) left; -1
 * when none is. */
static int plan_take(struct plan_pool *p, int small)
{
    pthread_mutex_lock(&p->lock);
    int i = p->lo > p->hi ? -1 : small ? p->order[p->hi--] : p->order[p->lo++];
    pthread_mutex_unlock(&p->lock);
    return i;
}

/* Cases until none is left (or the run is interrupted: none is needed). Half the threads
 * take the largest first, so none is left with a big case at the end; half the smallest,
 * so groups of small cases can start at once (sched.c starts a group when its cases are
 * made). */
static void *plan_prepare_thread(void *arg)
{
    struct plan_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    int nth = p->started++, small = nth & 1;
    pthread_mutex_unlock(&p->lock);
    trace_track(TRACE_DATA_TRACK + nth, "case data and references, thread %d (%s first)", nth + 1,
                small ? "smallest" : "largest");
    for (int i; !sup_interrupted && (i = plan_take(p, small)) >= 0;) {
        struct case_data *d = &p->cx->data[i];
        double t0 = now_ms();
        /* A sanitized group's child runs the kernel itself: it makes no reference. */
        op_prepare(d, &p->cx->kernels, !p->cx->o->group_child);
        trace_span(TRACE_DATA_TRACK + nth, "data", d->c->name, NULL, t0, now_ms());
        if (atomic_fetch_sub(&p->cx->unmade, 1) == 1)
            p->ms = now_ms() - p->t0;
    }
    return NULL;
}

static int plan_by_cost(const void *a, const void *b, void *cx)
{
    const struct case_data *data = ((struct run_ctx *)cx)->data;
    double x = plan_case_cost(data[*(const int *)a].c), y = plan_case_cost(data[*(const int *)b].c);
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

struct plan_pool *plan_prepare_start(struct run_ctx *cx, int jobs)
{
    struct plan_pool *p = xcalloc(1, sizeof *p);
    p->cx = cx, p->order = xcalloc((size_t)cx->cases.n + 1, sizeof(int)), p->t0 = now_ms();
    for (int i = 0; i < cx->cases.n; i++)
        if (cx->data[i].used)
            p->order[p->n++] = i;
    atomic_store(&cx->unmade, p->n);
    qsort_r(p->order, (size_t)p->n, sizeof *p->order, plan_by_cost, cx); /* largest first */
    pthread_mutex_init(&p->lock, NULL);
    p->hi = p->n - 1;
    int callers = jobs < 64 ? jobs : 64, made = 0;
    p->blas = ref_blas_threads();
    ref_set_blas_threads(ref_blas_threads_for(callers < p->n ? callers : p->n, p->blas));
    for (; made < callers && made < p->n; made++)
        if (pthread_create(&p->threads[made], NULL, plan_prepare_thread, p))
            break;
    p->joinable = made;
    if (!made) /* no thread: here, now */
        plan_prepare_thread(p);
    return p;
}

double plan_prepare_wait(struct plan_pool *p)
{
    for (int i = 0; i < p->joinable; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    ref_set_blas_threads(p->blas);
    double ms = p->ms;
    free(p->order);
    free(p);
    return ms;
}

void plan_prepare(struct run_ctx *cx, int jobs) { plan_prepare_wait(plan_prepare_start(cx, jobs)); }

int plan_width_runs(const struct run_opts *o, const struct probe *p, int dv, int w)
{
    struct sel_key key = {p->name, dv, p->dev[dv].name, p->dev[dv].widths[w].width, NULL, NULL, NULL};
    return (o->device < 0 || o->device == dv) && plan_width_selected(o, key.width) && sel_match(&o->ids, &key);
}

/* Bytes of one case's buffers, without guards (plan_check_memory) or with them (a group's
 * largest case, which the scheduler fits on the device). */
static double plan_case_bytes(const struct hb_case *c)
{
    if (!op_is_gemm(c->op))
        return 4.0 * (double)c->n * 1.01;
    return 4.0 * ((double)c->M * (c->lda > c->K ? c->lda : c->K) + (double)c->K * (c->ldb > c->N ? c->ldb : c->N) +
                  (double)c->M * (c->ldc > c->N ? c->ldc : c->N));
}

#define PLAN_HOST_FACTOR 11.0

int plan_check_memory(const struct run_ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err)
{
    double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < cx->cases.n; i++) {
        const struct case_data *d = &cx->data[i];
        if (!d->used)
            continue;
        const struct hb_case *c = d->c;
        double bytes = plan_case_bytes(c);
        /* The host holds inputs, float and float64 references, gauges and their temporaries,
         * and a worker's images of every buffer: measured at 8.5x the buffers (uniform data) to
         * 10.8x (subnormals, which add the flush figures). */
        if (host > 0 && PLAN_HOST_FACTOR * bytes > host) {
            err_set(err,
                    "%s:%d: case %s needs about %.1f GiB of host memory for its references; this host has %.1f GiB",
                    c->file, c->line, c->name, PLAN_HOST_FACTOR * bytes / 1073741824.0, host / 1073741824.0);
            return -1;
        }
        for (int b = 0; b < n_probes; b++)
            for (int dv = 0; dv < probes[b].count; dv++) {
                double have = (double)probes[b].dev[dv].global_mem_bytes;
                if (have > 0 && bytes + 6.0 * (double)grd_band() > have) {
                    err_set(err, "%s:%d: case %s needs %.1f GiB of buffers; %s device %s has %.1f GiB", c->file,
                            c->line, c->name, bytes / 1073741824.0, probes[b].name, probes[b].dev[dv].name,
                            have / 1073741824.0);
                    return -1;
                }
            }
    }
    return 0;
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
        if (!d->used || !(g->k ? kern_runs_case(g->k, d->c) : d->c->op == OP_SGEMM) || !sel_match(&cx->o->ids, &key))
            continue;
        g->cases[g->n_cases++] = i;
        g->cost += plan_case_cost(d->c);
        double bytes = plan_case_bytes(d->c) + 6.0 * (double)grd_band();
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
 * the kernels in manifest order. A kernel only a race detector judges, in a run without one,
 * is a group without cases that says so. */
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
        /* A group with no selected case is none, not even a SKIP row; a kernel only a race
         * detector judges, in a run without one, keeps no case and says so. */
        plan_group_cases(cx, &g);
        if (!g.n_cases) {
            free(g.cases);
            continue;
        }
        g.skip_racecheck = g.k && g.k->needs_racecheck && !plan_race_detector(o);
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
    for (int i = 0; i < n; i++)
        free(groups[i].cases);
    free(groups);
}
