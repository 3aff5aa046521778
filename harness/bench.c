/* bench.c: times every SGEMM form at each size and every reduction at one large n, each
 * in a child process like the conformance run. Per timing: two warm-up launches, then the
 * median of `runs` launches' device times (events, timestamp queries). SGEMM is reported
 * as TFLOPS, % of the vendor library (cuBLAS) and % of the device's fp32 peak; reductions
 * as GB/s read and % of a device-to-device copy's bandwidth (bytes read plus written). */
#include "bench.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend.h"
#include "child.h"
#include "gen.h"
#include "loader.h"
#include "manifest.h"
#include "probe.h"

#define BENCH_TIMEOUT_MS 600000

enum bench_kind { BK_KERNEL, BK_VENDOR, BK_COPY };

struct bench_msg {
    int ok;
    double ms[BENCH_MAX_SIZES]; /* median per size (one entry for reductions and copy) */
    char err[256];
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

/* Median device time of `runs` launches after two warm-ups, or a negative value. */
static double time_launches(const struct hb_backend *be, hb_ctx *ctx, hb_kern *kern, enum bench_kind kind,
                            const unsigned grid[3], const struct hb_args *args, size_t copy_bytes, int runs)
{
    double t[64];
    if (runs > 64)
        runs = 64;
    for (int i = -2; i < runs; i++) {
        double ms = 0;
        int rc = kind == BK_KERNEL ? be->launch(ctx, kern, grid, args, &ms)
               : kind == BK_VENDOR ? be->vendor_sgemm(ctx, args, &ms)
                                   : be->copy(ctx, args->bufs[1], 0, args->bufs[0], 0, copy_bytes, &ms);
        if (rc != HB_OK)
            return -1;
        if (i >= 0)
            t[i] = ms;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    return t[runs / 2];
}

struct bench_job {
    const struct bench_opts *o;
    const struct probe *p;
    const struct kern_desc *k;
    enum bench_kind kind;
};

static void bench_child(void *arg, int fd)
{
    const struct bench_job *job = arg;
    const struct bench_opts *o = job->o;
    const struct probe *p = job->p;
    const struct kern_desc *k = job->k;
    enum bench_kind kind = job->kind;
    struct bench_msg m;
    memset(&m, 0, sizeof m);
    const struct hb_width_option *w = default_width(&p->dev[0]);
    if (w->env[0])
        putenv(xstrdup(w->env));
    struct hb_err err = {{0}};
    const struct hb_backend *be = ldr_open(p->name, &err);
    hb_ctx *ctx = NULL;
    hb_kern *kern = NULL;
    if (!be) {
        snprintf(m.err, sizeof m.err, "%.250s", err.msg);
        goto done;
    }
    if (be->open(&ctx, 0, w->width, m.err, sizeof m.err) != HB_OK)
        goto done;
    if ((kind == BK_VENDOR && !be->vendor_sgemm) || (kind == BK_COPY && !be->copy)) {
        snprintf(m.err, sizeof m.err, "backend %s has no %s", p->name, kind == BK_COPY ? "copy" : "vendor library");
        goto done;
    }
    if (kind == BK_KERNEL) {
        char *build = xstrdup(path_exe_dir());
        struct hb_kernel_spec spec;
        kern_spec(k, build, &spec);
        if (be->load(ctx, &spec, &kern) != HB_OK) {
            snprintf(m.err, sizeof m.err, "load: %.240s", be->last_error(ctx));
            goto done;
        }
    }
    int sgemm = kind == BK_VENDOR || (kind == BK_KERNEL && k->op == OP_SGEMM);
    int n_points = sgemm ? o->n_sizes : 1;
    for (int s = 0; s < n_points; s++) {
        long n = sgemm ? o->sizes[s] : o->reduce_n;
        struct hb_case c;
        memset(&c, 0, sizeof c);
        c.op = sgemm ? OP_SGEMM : OP_REDUCE;
        c.M = c.N = c.K = n;
        c.n = n;
        c.dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
        c.seed = (uint64_t)n;
        size_t elems[3] = {(size_t)n * (sgemm ? (size_t)n : 1), sgemm ? (size_t)n * n : 0, sgemm ? (size_t)n * n : 0};
        if (!sgemm)
            elems[1] = kind == BK_COPY ? elems[0] : (size_t)((n + k->chunk - 1) / k->chunk);
        struct hb_args args;
        memset(&args, 0, sizeof args);
        args.n_bufs = sgemm ? 3 : 2;
        int failed = 0;
        for (int b = 0; b < args.n_bufs && !failed; b++) {
            size_t bytes = elems[b] * sizeof(float);
            failed = be->alloc(ctx, bytes, &args.bufs[b]) != HB_OK;
            if (!failed && b < args.n_bufs - 1) {
                float *host = xcalloc(elems[b], sizeof(float));
                gen_fill(host, elems[b], &c, sgemm ? n : k ? k->chunk : 1, b);
                failed = be->upload(ctx, args.bufs[b], 0, host, bytes) != HB_OK;
                free(host);
            }
        }
        unsigned grid[3] = {1, 1, 1};
        if (sgemm) {
            args.n_ints = 3;
            args.ints[0] = args.ints[1] = args.ints[2] = (int32_t)n;
        } else {
            args.n_ints = 1;
            args.ints[0] = (int32_t)n;
        }
        if (!failed && kind == BK_KERNEL && kern_grid(k, &c, grid, &err)) {
            snprintf(m.err, sizeof m.err, "%.250s", err.msg);
            goto done;
        }
        m.ms[s] = failed ? -1 : time_launches(be, ctx, kern, kind, grid, &args, elems[0] * sizeof(float), o->runs);
        for (int b = 0; b < args.n_bufs; b++)
            if (args.bufs[b])
                be->release(ctx, args.bufs[b]);
        if (m.ms[s] < 0) {
            snprintf(m.err, sizeof m.err, "size %ld: %.230s", n, be->last_error(ctx));
            goto done;
        }
    }
    m.ok = 1;
done:
    child_write(fd, &m, sizeof m);
}

static int bench_one(const struct bench_opts *o, const struct probe *p, const struct kern_desc *k,
                     enum bench_kind kind, struct bench_msg *m)
{
    memset(m, 0, sizeof *m);
    struct bench_job job = {o, p, k, kind};
    struct child ch;
    struct hb_err err = {{0}};
    if (child_spawn(&ch, bench_child, &job, &err)) {
        snprintf(m->err, sizeof m->err, "%.250s", err.msg);
        return -1;
    }
    int rc = child_read(ch.fd, m, sizeof *m, BENCH_TIMEOUT_MS);
    if (rc != 1)
        child_kill(&ch);
    int status = child_reap(&ch);
    if (rc != 1) {
        snprintf(m->err, sizeof m->err, "%s", rc == -1 ? "timed out" : WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "child failed");
        m->ok = 0;
    }
    return m->ok ? 0 : -1;
}

/* Benches kernel k on probe p if it is a selected, shipped (not canary) kernel of `op` the
 * backend runs: 1 with m filled and `full` naming it, 0 when not selected, -1 on failure
 * (printed). */
static int bench_selected(const struct bench_opts *o, const struct probe *p, const struct kern_desc *k,
                          enum hb_op op, char *full, size_t full_len, struct bench_msg *m)
{
    snprintf(full, full_len, "%.8s/%.100s", k->lang, k->name);
    if (k->op != op || k->expect || !strstr(p->langs, k->lang) ||
        (o->kernel_glob && fnmatch(o->kernel_glob, k->name, 0) && fnmatch(o->kernel_glob, full, 0)))
        return 0;
    snprintf(full, full_len, "%.8s/%.80s (%.15s)", k->lang, k->name, p->name);
    if (bench_one(o, p, k, BK_KERNEL, m)) {
        printf("  %-28s %s\n", full, m->err);
        return -1;
    }
    return 1;
}

static void print_row(const char *impl, const char *device, long n, double ms, double vendor_ms, double peak)
{
    double tflops = 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12;
    printf("  %-28s %-24.24s %6ld %9.2f", impl, device, n, tflops);
    if (vendor_ms > 0)
        printf(" %10.1f%%", 100.0 * vendor_ms / ms);
    else
        printf(" %11s", "n/a");
    if (peak > 0)
        printf(" %10.1f%%\n", 100.0 * tflops / peak);
    else
        printf(" %11s\n", "n/a");
}

int bench_main(const struct bench_opts *o, struct hb_err *err)
{
    struct kern_set ks;
    memset(&ks, 0, sizeof ks);
    char *dir = path_join(path_root_dir(), "kernels");
    int rc = kern_discover(dir, &ks, err);
    free(dir);
    if (rc)
        return 2;
    struct probe probes[LDR_MAX];
    int n_probes = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", o->backends);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name && n_probes < LDR_MAX; name = strtok_r(NULL, ",", &save)) {
        if (!ldr_is_known(name)) {
            err_set(err, "unknown backend '%s'", name);
            kern_set_free(&ks);
            return 2;
        }
        prb_probe(name, &probes[n_probes]);
        if (probes[n_probes].count <= 0) {
            err_set(err, "backend %s: no usable device: %s", name, probes[n_probes].err[0] ? probes[n_probes].err : "none found");
            kern_set_free(&ks);
            return 3;
        }
        n_probes++;
    }
    /* The yardsticks, measured first, in this same run. */
    struct bench_msg vendor = {0, {0}, ""}, copy = {0, {0}, ""};
    const struct probe *vendor_p = NULL;
    for (int i = 0; i < n_probes && !vendor_p; i++)
        if (probes[i].vendor[0] && !bench_one(o, &probes[i], NULL, BK_VENDOR, &vendor))
            vendor_p = &probes[i];
    printf("SGEMM (C = A*B, fp32, uniform data; median of %d after 2 warm-ups)\n", o->runs);
    printf("  %-28s %-24s %6s %9s %11s %11s\n", "implementation", "device", "n", "TFLOPS",
           vendor_p ? "% of vendor" : "% vendor", "% fp32 peak");
    if (vendor_p)
        for (int s = 0; s < o->n_sizes; s++) {
            char impl[64];
            snprintf(impl, sizeof impl, "%s (%s)", vendor_p->vendor, vendor_p->name);
            print_row(impl, vendor_p->dev[0].name, o->sizes[s], vendor.ms[s], vendor.ms[s], vendor_p->dev[0].fp32_peak_tflops);
        }
    int failures = 0;
    for (int i = 0; i < n_probes; i++)
        for (int j = 0; j < ks.n; j++) {
            struct bench_msg m;
            char full[128];
            int rc = bench_selected(o, &probes[i], &ks.k[j], OP_SGEMM, full, sizeof full, &m);
            failures += rc < 0;
            for (int s = 0; rc > 0 && s < o->n_sizes; s++)
                print_row(full, probes[i].dev[0].name, o->sizes[s], m.ms[s], vendor_p ? vendor.ms[s] : 0,
                          probes[i].dev[0].fp32_peak_tflops);
        }
    /* The bandwidth yardstick is the first backend's device-to-device copy, as the vendor
     * SGEMM is for SGEMM: one ruler for every row. Each backend's own copy is shown too (a
     * Vulkan copy may run on a DMA engine, far below what the SMs move). */
    double bytes = (double)o->reduce_n * sizeof(float);
    double ruler_gbs = 0;
    printf("\nReductions (n = %ld floats; GB/s of input read; a copy counts bytes read plus written)\n", o->reduce_n);
    printf("  %-28s %-24s %9s %11s\n", "implementation", "device", "GB/s", "% of copy");
    for (int i = 0; i < n_probes; i++) {
        char name[64];
        snprintf(name, sizeof name, "device copy (%s)", probes[i].name);
        if (!bench_one(o, &probes[i], NULL, BK_COPY, &copy)) {
            double gbs = 2 * bytes / (copy.ms[0] * 1e-3) / 1e9;
            if (ruler_gbs == 0)
                ruler_gbs = gbs;
            printf("  %-28s %-24.24s %9.1f %10.1f%%\n", name, probes[i].dev[0].name, gbs, 100.0 * gbs / ruler_gbs);
        } else {
            printf("  %-28s %s\n", name, copy.err);
        }
        for (int j = 0; j < ks.n; j++) {
            struct bench_msg m;
            char full[128];
            int rc = bench_selected(o, &probes[i], &ks.k[j], OP_REDUCE, full, sizeof full, &m);
            failures += rc < 0;
            if (rc <= 0)
                continue;
            double gbs = bytes / (m.ms[0] * 1e-3) / 1e9;
            printf("  %-28s %-24.24s %9.1f", full, probes[i].dev[0].name, gbs);
            if (ruler_gbs > 0)
                printf(" %10.1f%%\n", 100.0 * gbs / ruler_gbs);
            else
                printf(" %11s\n", "n/a");
        }
    }
    kern_set_free(&ks);
    return failures ? 1 : 0;
}
