/* SPDX-License-Identifier: MIT */
/* bench.c: times every SGEMM form at each size and every reduction at one large n, each
 * in a child process like the conformance run, on device 0 of each backend or on every
 * device (--devices all). Per timing: two warm-up launches, then the median of `runs`
 * launches' device times (events, timestamp queries). SGEMM is reported as TFLOPS, % of the
 * vendor library (cuBLAS) on a device of the same name and % of the fp32 peak; reductions
 * as GB/s read, % of a device-to-device copy (bytes read plus written) and % of the DRAM
 * peak; custom kernels (the scan and softmax families, bench_custom.c) at the same n as GB/s
 * read plus written against the same copy. Next to each kernel: registers, shared memory and occupancy where the
 * backend can tell. The rows also go to bench_out.c's JSON, CSV and SVG writers. */
#include "bench.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "gen.h"
#include "loader.h"
#include "manifest.h"
#include "probe.h"
#include "reduce.h"
#include "run.h"

#define BENCH_TIMEOUT_MS 600000

struct bench_msg {
    int ok;
    double ms[BENCH_MAX_SIZES]; /* median per size (one entry for reductions and copy) */
    int have_info;
    struct hb_kernel_info info;
    char err[256];
};

struct bench_job {
    const struct bench_opts *o;
    const struct probe *p;
    const struct kern_desc *k;
    enum bench_what what;
    int device;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const struct hb_width_option *default_width(const struct hb_device_info *d)
{
    for (int i = 0; i < d->n_widths; i++)
        if (!d->widths[i].env[0])
            return &d->widths[i];
    return &d->widths[d->n_widths - 1];
}

double bench_time_launches(struct bcall *bk, hb_kern *kern, enum bench_what what, const unsigned grid[3],
                           const struct hb_args *args, size_t copy_bytes, int runs)
{
    double t[64];
    if (runs > 64)
        runs = 64;
    for (int i = -2; i < runs; i++) {
        double ms = 0;
        int rc = what == BENCH_KERNEL   ? bcall_launch(bk, kern, grid, args, &ms)
                 : what == BENCH_VENDOR ? bcall_vendor_sgemm(bk, args, &ms)
                                        : bcall_copy(bk, args->bufs[1], 0, args->bufs[0], 0, copy_bytes, &ms);
        if (rc != HB_OK)
            return -1;
        if (i >= 0)
            t[i] = ms;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    return t[runs / 2];
}

/* One point: an n^3 SGEMM or an n-float reduction (or copy) on fresh uniform data. Returns
 * its median time, or -1 with m->err. */
static double bench_point(struct bcall *bk, hb_kern *kern, const struct bench_job *job, int sgemm, long n,
                          struct bench_msg *m)
{
    const struct kern_desc *k = job->k;
    struct hb_case c;
    memset(&c, 0, sizeof c);
    c.op = sgemm ? OP_SGEMM : OP_REDUCE;
    c.M = c.N = c.K = n;
    c.n = n;
    c.dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
    c.seed = (uint64_t)n;
    size_t elems[3] = {(size_t)n * (sgemm ? (size_t)n : 1), sgemm ? (size_t)n * n : 0, sgemm ? (size_t)n * n : 0};
    if (!sgemm)
        elems[1] = job->what == BENCH_COPY ? elems[0] : (size_t)red_outputs(k, n);
    /* A reduction's x and partials in its types (reduce.h); everything else is float. */
    enum hb_type types[3] = {TY_F32, TY_F32, TY_F32};
    if (!sgemm && k && job->what != BENCH_COPY)
        types[0] = (enum hb_type)k->reduce.type, types[1] = red_partial_type(types[0]);
    /* The op's layout of the case (row-major, so every leading dimension is n; alpha 1, beta
     * 0), bound as the testbed binds it: a kernel's declared `args` are honoured. */
    struct op_layout lay;
    memset(&lay, 0, sizeof lay);
    lay.n_bufs = sgemm ? 3 : 2;
    for (int b = 0; b < lay.n_bufs; b++)
        lay.bytes[b] = elems[b] * ty_get(types[b])->size;
    lay.n_ints = sgemm ? 6 : 1;
    for (int i = 0; i < lay.n_ints; i++)
        lay.ints[i] = (int32_t)n;
    lay.n_floats = sgemm ? 2 : 0;
    lay.floats[0] = 1.0f;
    struct hb_args args;
    kern_bind(job->what == BENCH_KERNEL ? k : NULL, c.op, &lay, &args);
    int failed = 0;
    for (int b = 0; b < args.n_bufs && !failed; b++) {
        size_t bytes = lay.bytes[b];
        failed = bcall_alloc(bk, bytes, &args.bufs[b]) != HB_OK;
        if (!failed && b < args.n_bufs - 1) {
            float *host = xcalloc(elems[b], sizeof(float));
            unsigned char *typed = xcalloc(elems[b] + 1, ty_get(types[b])->size);
            gen_fill(host, elems[b], &c, sgemm ? n : k && k->chunk ? k->chunk : n, b);
            for (size_t i = 0; i < elems[b]; i++)
                ty_store(types[b], typed + i * ty_get(types[b])->size, host[i]);
            failed = bcall_upload(bk, args.bufs[b], 0, typed, bytes) != HB_OK;
            free(host), free(typed);
        }
    }
    unsigned grid[3] = {1, 1, 1};
    struct hb_err err = {{0}};
    double ms = -1;
    if (!failed && job->what == BENCH_KERNEL && kern_grid(k, &c, grid, &err))
        snprintf(m->err, sizeof m->err, "%.250s", err.msg);
    else if (!failed)
        ms = bench_time_launches(bk, kern, job->what, grid, &args, lay.bytes[0], job->o->runs);
    if (ms < 0 && !m->err[0])
        snprintf(m->err, sizeof m->err, "size %ld: %.230s", n, bcall_error(bk));
    for (int b = 0; b < args.n_bufs; b++)
        if (args.bufs[b])
            bcall_release(bk, args.bufs[b]);
    return ms;
}

/* In the child, on an open context: loads the kernel (and asks its figures), then times
 * each point. */
static void bench_measure(struct bcall *bk, const struct bench_job *job, struct bench_msg *m)
{
    hb_kern *kern = NULL;
    if ((job->what == BENCH_VENDOR && !bcall_has_vendor_sgemm(bk)) ||
        (job->what == BENCH_COPY && !bcall_has_copy(bk))) {
        snprintf(m->err, sizeof m->err, "backend %s has no %s", job->p->name,
                 job->what == BENCH_COPY ? "copy" : "vendor library");
        return;
    }
    if (job->what == BENCH_KERNEL) {
        struct hb_kernel_spec spec;
        kern_spec(job->k, xstrdup(path_exe_dir()), &spec);
        if (bcall_load(bk, &spec, NULL, NULL, &kern) != HB_OK) {
            snprintf(m->err, sizeof m->err, "load: %.240s", bcall_error(bk));
            return;
        }
        m->have_info = bcall_kernel_info(bk, kern, &m->info);
    }
    if (job->what == BENCH_KERNEL && job->k->custom) {
        m->ms[0] = bench_custom_point(bk, kern, job->k, job->o->reduce_n, job->o->runs, m->err, sizeof m->err);
        m->ok = m->ms[0] >= 0;
        return;
    }
    int sgemm = job->what == BENCH_VENDOR || (job->what == BENCH_KERNEL && job->k->op == OP_SGEMM);
    m->ok = 1;
    for (int s = 0; m->ok && s < (sgemm ? job->o->n_sizes : 1); s++) {
        m->ms[s] = bench_point(bk, kern, job, sgemm, sgemm ? job->o->sizes[s] : job->o->reduce_n, m);
        m->ok = m->ms[s] >= 0;
    }
}

static void bench_child(void *arg, int fd)
{
    const struct bench_job *job = arg;
    struct bench_msg m;
    memset(&m, 0, sizeof m);
    const struct hb_width_option *w = default_width(&job->p->dev[job->device]);
    if (w->env[0])
        putenv(xstrdup(w->env));
    struct hb_err err = {{0}};
    struct bcall bk;
    if (bcall_backend(&bk, job->p->name, &err))
        snprintf(m.err, sizeof m.err, "%.250s", err.msg);
    else if (bcall_open(&bk, job->device, w->width, m.err, sizeof m.err) == HB_OK)
        bench_measure(&bk, job, &m);
    child_write(fd, &m, sizeof m);
}

static int bench_one(const struct bench_job *job, struct bench_msg *m)
{
    memset(m, 0, sizeof *m);
    struct child ch;
    struct hb_err err = {{0}};
    if (child_spawn(&ch, bench_child, (void *)job, &err)) {
        snprintf(m->err, sizeof m->err, "%.250s", err.msg);
        return -1;
    }
    int rc = child_read(ch.fd, m, sizeof *m, BENCH_TIMEOUT_MS);
    if (rc != 1)
        child_kill(&ch);
    int status = child_reap(&ch);
    if (rc != 1) {
        snprintf(m->err, sizeof m->err, "%s",
                 rc == -1              ? "timed out"
                 : WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
                                       : "child failed");
        m->ok = 0;
    }
    return m->ok ? 0 : -1;
}

/* The rows of one run, and the yardsticks they are divided by. */
struct bench_state {
    const struct bench_opts *o;
    struct probe probes[LDR_MAX];
    int n_probes;
    struct bench_row *rows;
    int n_rows, cap;
    int failures;
};

static struct bench_row *row_add(struct bench_state *st, const struct probe *p, int dev, const char *impl,
                                 enum bench_what what, int sgemm, long n, double ms)
{
    if (st->n_rows == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 64;
        st->rows = realloc(st->rows, (size_t)st->cap * sizeof *st->rows);
        if (!st->rows)
            abort();
    }
    struct bench_row *r = &st->rows[st->n_rows++];
    memset(r, 0, sizeof *r);
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    snprintf(r->backend, sizeof r->backend, "%s", p->name);
    snprintf(r->device, sizeof r->device, "%s", p->dev[dev].name);
    snprintf(r->driver, sizeof r->driver, "%s", p->dev[dev].driver);
    r->device_index = dev;
    r->what = what;
    r->sgemm = sgemm;
    r->n = n;
    r->ms = ms;
    double bytes = (double)n * sizeof(float) * (what == BENCH_COPY ? 2 : 1);
    r->rate = sgemm ? 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12 : bytes / (ms * 1e-3) / 1e9;
    r->pct_ruler = r->pct_peak = -1;
    if (sgemm && p->dev[dev].fp32_peak_tflops > 0)
        r->pct_peak = 100.0 * r->rate / p->dev[dev].fp32_peak_tflops;
    return r;
}

/* The yardstick row for `r`: the same size's vendor SGEMM (or the copy) on a device of the
 * same name, else on the first device that has one; NULL when there is none. */
static const struct bench_row *ruler_for(const struct bench_state *st, const struct bench_row *r)
{
    enum bench_what want = r->sgemm ? BENCH_VENDOR : BENCH_COPY;
    const struct bench_row *first = NULL;
    for (int i = 0; i < st->n_rows; i++) {
        const struct bench_row *q = &st->rows[i];
        if (q->what != want || q->n != r->n)
            continue;
        if (!strcmp(q->device, r->device))
            return q;
        if (!first)
            first = q;
    }
    return first;
}

static int device_count(const struct bench_state *st, const struct probe *p)
{
    return st->o->all_devices ? (p->count < MAX_DEVICES ? p->count : MAX_DEVICES) : 1;
}

static void print_pct(double pct)
{
    if (pct >= 0)
        printf(" %10.1f%%", pct);
    else
        printf(" %11s", "n/a");
}

/* One row as text, named `label` (the implementation and its backend). */
static void print_row(const char *label, const struct bench_row *r)
{
    printf("  %-28.28s %-24.24s ", label, r->device);
    if (r->sgemm)
        printf("%6ld %9.2f", r->n, r->rate);
    else
        printf("%9.1f", r->rate);
    print_pct(r->pct_ruler);
    print_pct(r->pct_peak);
    if (r->have_info)
        printf("  %4d %7d %5.0f%% (%d/SM)%s", r->info.regs, r->info.shared_bytes, 100.0 * r->info.occupancy,
               r->info.blocks_per_sm, r->info.local_bytes > 0 ? " spills" : "");
    printf("\n");
}

/* Times one kernel, the vendor library (k NULL, sgemm) or the copy (k NULL, !sgemm) on
 * device dev of probe p and adds its rows; on failure prints why and counts it. */
static void bench_add(struct bench_state *st, const struct probe *p, int dev, const struct kern_desc *k, int sgemm)
{
    enum bench_what what = k ? BENCH_KERNEL : sgemm ? BENCH_VENDOR : BENCH_COPY;
    struct bench_job job = {st->o, p, k, what, dev};
    struct bench_msg m;
    char impl[96];
    if (k)
        snprintf(impl, sizeof impl, "%.8s/%.80s", k->lang, k->name);
    else
        snprintf(impl, sizeof impl, "%.60s", sgemm ? p->vendor : "device copy");
    char shown[128];
    snprintf(shown, sizeof shown, "%.90s (%.15s)", impl, p->name);
    struct hb_case point;
    if (k && k->custom && bench_custom_case(k, st->o->reduce_n, &point, m.err, sizeof m.err)) {
        printf("  %-28s %s\n", shown, m.err);
        return;
    }
    if (bench_one(&job, &m)) {
        printf("  %-28s %s\n", shown, m.err);
        st->failures += what == BENCH_KERNEL;
        return;
    }
    for (int s = 0; s < (sgemm ? st->o->n_sizes : 1); s++) {
        struct bench_row *r =
            row_add(st, p, dev, impl, what, sgemm, sgemm ? st->o->sizes[s] : st->o->reduce_n, m.ms[s]);
        r->have_info = m.have_info;
        r->info = m.info;
        if (k && k->custom) {
            r->custom = 1;
            r->rate = bench_custom_bytes(k, r->n) / (r->ms * 1e-3) / 1e9;
        }
        const struct bench_row *ruler = ruler_for(st, r);
        if (ruler)
            r->pct_ruler = 100.0 * (sgemm ? ruler->ms / r->ms : r->rate / ruler->rate);
        if (!sgemm && m.have_info && m.info.dram_peak_gbs > 0)
            r->pct_peak = 100.0 * r->rate / m.info.dram_peak_gbs;
        print_row(shown, r);
    }
}

/* Whether kernel k is a selected, shipped (not canary) kernel of `op` that probe p runs. */
static int selected(const struct bench_opts *o, const struct probe *p, const struct kern_desc *k, enum hb_op op)
{
    char full[128];
    snprintf(full, sizeof full, "%.8s/%.100s", k->lang, k->name);
    return k->op == op && !k->expect && strstr(p->langs, k->lang) &&
           (!o->kernel_glob || !fnmatch(o->kernel_glob, k->name, 0) || !fnmatch(o->kernel_glob, full, 0));
}

static void bench_sgemm(struct bench_state *st, const struct kern_set *ks)
{
    printf("SGEMM (C = A*B, fp32, uniform data; median of %d after 2 warm-ups)\n", st->o->runs);
    printf("  %-28s %-24s %6s %9s %11s %11s  %4s %7s %s\n", "implementation", "device", "n", "TFLOPS", "% of vendor",
           "% fp32 peak", "regs", "smem B", "occupancy");
    /* The yardsticks first, in this same run. */
    for (int i = 0; i < st->n_probes; i++)
        for (int d = 0; st->probes[i].vendor[0] && d < device_count(st, &st->probes[i]); d++)
            bench_add(st, &st->probes[i], d, NULL, 1);
    for (int i = 0; i < st->n_probes; i++)
        for (int d = 0; d < device_count(st, &st->probes[i]); d++)
            for (int j = 0; j < ks->n; j++)
                if (selected(st->o, &st->probes[i], &ks->k[j], OP_SGEMM))
                    bench_add(st, &st->probes[i], d, &ks->k[j], 1);
}

/* The bandwidth yardstick is the first backend's device-to-device copy on a device of the
 * same name, as the vendor SGEMM is for SGEMM. Each backend's own copy is shown too (a
 * Vulkan copy may run on a DMA engine, far below what the SMs move). */
static void bench_reduce(struct bench_state *st, const struct kern_set *ks)
{
    printf("\nReductions (n = %ld floats; GB/s of input read; a copy counts bytes read plus written)\n",
           st->o->reduce_n);
    printf("  %-28s %-24s %9s %11s %11s  %4s %7s %s\n", "implementation", "device", "GB/s", "% of copy", "% DRAM peak",
           "regs", "smem B", "occupancy");
    for (int i = 0; i < st->n_probes; i++)
        for (int d = 0; d < device_count(st, &st->probes[i]); d++) {
            bench_add(st, &st->probes[i], d, NULL, 0);
            for (int j = 0; j < ks->n; j++)
                if (selected(st->o, &st->probes[i], &ks->k[j], OP_REDUCE))
                    bench_add(st, &st->probes[i], d, &ks->k[j], 0);
        }
}

/* Custom kernels (the scan and softmax families) against the same copy, counting what they
 * read and write as the copy counts its bytes. */
static void bench_custom(struct bench_state *st, const struct kern_set *ks)
{
    printf("\nCustom ops: scan, softmax (n = %ld floats in: sizes n, or rows x 1024 columns; GB/s of bytes read "
           "plus written, as the copy)\n",
           st->o->reduce_n);
    printf("  %-28s %-24s %9s %11s %11s  %4s %7s %s\n", "implementation", "device", "GB/s", "% of copy", "% DRAM peak",
           "regs", "smem B", "occupancy");
    for (int i = 0; i < st->n_probes; i++)
        for (int d = 0; d < device_count(st, &st->probes[i]); d++)
            for (int j = 0; j < ks->n; j++)
                if (selected(st->o, &st->probes[i], &ks->k[j], OP_CUSTOM))
                    bench_add(st, &st->probes[i], d, &ks->k[j], 0);
}

static int bench_outputs(const struct bench_state *st, struct hb_err *err)
{
    if (st->o->json && bench_write_json(st->o->json, st->o, st->rows, st->n_rows, err))
        return -1;
    if (st->o->csv && bench_write_csv(st->o->csv, st->rows, st->n_rows, err))
        return -1;
    if (st->o->svg && bench_write_svg(st->o->svg, st->rows, st->n_rows, err))
        return -1;
    return 0;
}

int bench_main(const struct bench_opts *o, struct hb_err *err)
{
    struct kern_set ks;
    memset(&ks, 0, sizeof ks);
    char *dir = path_join(path_root_dir(), "kernels");
    int rc = kern_discover(dir, &ks, err);
    free(dir);
    if (rc)
        return EXIT_USAGE;
    struct bench_state *st = xcalloc(1, sizeof *st);
    st->o = o;
    char list[256];
    snprintf(list, sizeof list, "%s", o->backends);
    int code = EXIT_OK;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name && st->n_probes < LDR_MAX && !code;
         name = strtok_r(NULL, ",", &save)) {
        struct probe *p = &st->probes[st->n_probes++];
        if (ldr_check_known(name, err)) {
            code = EXIT_USAGE;
            break;
        }
        prb_probe(name, p);
        if (p->count <= 0) {
            err_set(err, "backend %s: no usable device: %s", name, p->err[0] ? p->err : "none found");
            code = EXIT_NO_DEVICE;
        }
    }
    if (!code) {
        bench_sgemm(st, &ks);
        bench_reduce(st, &ks);
        bench_custom(st, &ks);
        code = bench_outputs(st, err) ? EXIT_USAGE : st->failures ? EXIT_FAILURES : EXIT_OK;
    }
    free(st->rows);
    free(st);
    kern_set_free(&ks);
    return code;
}
