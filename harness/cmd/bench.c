/* SPDX-License-Identifier: MIT */
/* bench.c: times the kernels of every op that says how (op.h's op_bench), a section per op,
 * each point in a child process like the conformance run, on device 0 of each backend or on
 * every device (--devices all). Per timing: two warm-up launches, then the median of `runs`
 * launches' device times (events, timestamp queries). A point is the op's own case and layout
 * (its data as a conformance case has it, no reference). An op timed in flops (SGEMM, at each
 * size) is reported as TFLOPS, % of the vendor library (cuBLAS) on a device of the same name
 * and % of the fp32 peak; one timed in bytes (reductions: read; custom kernels: read plus
 * written, at one large n) as GB/s, % of a device-to-device copy (bytes read plus written)
 * and % of the DRAM peak. Next to each kernel: registers, shared memory and occupancy where
 * the backend can tell. The rows also go to bench_out.c's JSON, CSV and SVG writers. Knows no
 * op by name. */
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
#include "run.h"

#define BENCH_TIMEOUT_MS 600000

struct bench_msg {
    int ok;
    double ms[BENCH_MAX_SIZES]; /* median per size (one entry for an op timed in bytes, and the copy) */
    int have_info;
    struct hb_kernel_info info;
    char err[256];
};

struct bench_job {
    const struct bench_opts *o;
    const struct probe *p;
    const struct kern_desc *k;
    enum bench_what what;
    enum hb_op op; /* the kernel's, the vendor library's, or (the copy) its section's */
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

/* The sizes an op's points take: each of --sizes for one timed in flops, --reduce-n else (and
 * for the copy). */
static int bench_flops(enum bench_what what, enum hb_op op)
{
    return what != BENCH_COPY && op_get(op)->bench->rate == OP_BENCH_FLOPS;
}

static int bench_sizes(const struct bench_opts *o, enum bench_what what, enum hb_op op, const long **sizes)
{
    int flops = bench_flops(what, op);
    *sizes = flops ? o->sizes : &o->reduce_n;
    return flops ? o->n_sizes : 1;
}

/* What one point launches: the op's case with its inputs and layout for the kernel (the vendor
 * library), or a copy's two buffers of n floats of the same uniform data. */
struct bench_data {
    struct hb_case c;
    struct case_data d;
    struct kern_desc k; /* the kernel, its `cases` glob aside: bench times it whatever its cases */
    struct kern_set ks;
    struct op_layout lay;
    int prepared; /* d holds the op's data (op_release) */
    float *x;     /* the copy's */
};

static int bench_data_make(const struct bench_job *job, long n, struct bench_data *b, char *why, size_t len)
{
    memset(b, 0, sizeof *b);
    b->c.dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
    b->c.seed = (uint64_t)n;
    b->d.c = &b->c;
    if (job->what == BENCH_COPY) {
        b->x = xcalloc((size_t)n + 1, sizeof(float));
        gen_fill(b->x, (size_t)n, &b->c, n, 0);
        b->lay.n_bufs = 2;
        b->lay.data[0] = b->x;
        b->lay.bytes[0] = b->lay.bytes[1] = (size_t)n * sizeof(float);
        return 0;
    }
    const struct op_desc *op = op_get(job->op);
    if (op->bench->point(job->k, n, &b->c, why, len))
        return -1;
    if (job->k) {
        b->k = *job->k;
        b->k.cases = NULL;
        b->ks.k = &b->k, b->ks.n = 1;
    }
    const struct kern_desc *k = job->k ? &b->k : NULL;
    op_prepare(&b->d, &b->ks, 0);
    b->prepared = 1;
    const char *bad = op->data_error ? op->data_error(&b->d, k) : NULL;
    if (bad)
        return snprintf(why, len, "%s", bad), -1;
    op->layout(&b->d, k, &b->lay);
    return 0;
}

static void bench_data_release(struct bench_data *b)
{
    if (b->prepared)
        op_release(&b->d);
    free(b->x);
}

/* One point of size n on fresh uniform data, bound as the testbed binds it (a kernel's
 * declared `args` are honoured). Returns its median time, or -1 with m->err. */
static double bench_point(struct bcall *bk, hb_kern *kern, const struct bench_job *job, long n, struct bench_msg *m)
{
    struct bench_data *b = xcalloc(1, sizeof *b);
    struct hb_args args;
    memset(&args, 0, sizeof args);
    double ms = -1;
    if (bench_data_make(job, n, b, m->err, sizeof m->err)) {
        bench_data_release(b);
        free(b);
        return -1;
    }
    if (job->what == BENCH_COPY)
        args.n_bufs = 2;
    else
        kern_bind(job->what == BENCH_KERNEL ? job->k : NULL, job->op, &b->lay, &args);
    int failed = 0;
    for (int i = 0; i < args.n_bufs && !failed; i++) {
        failed = bcall_alloc(bk, b->lay.bytes[i], &args.bufs[i]) != HB_OK;
        if (!failed && b->lay.data[i] && b->lay.bytes[i])
            failed = bcall_upload(bk, args.bufs[i], 0, b->lay.data[i], b->lay.bytes[i]) != HB_OK;
    }
    unsigned grid[3] = {1, 1, 1};
    struct hb_err err = {{0}};
    if (!failed && job->what == BENCH_KERNEL && kern_grid(job->k, &b->c, grid, &err))
        snprintf(m->err, sizeof m->err, "%.250s", err.msg);
    else if (!failed)
        ms = bench_time_launches(bk, kern, job->what, grid, &args, b->lay.bytes[0], job->o->runs);
    if (ms < 0 && !m->err[0])
        snprintf(m->err, sizeof m->err, "size %ld: %.230s", n, bcall_error(bk));
    for (int i = 0; i < args.n_bufs; i++)
        if (args.bufs[i])
            bcall_release(bk, args.bufs[i]);
    bench_data_release(b);
    free(b);
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
    const long *sizes;
    int n_sizes = bench_sizes(job->o, job->what, job->op, &sizes);
    m->ok = 1;
    for (int s = 0; m->ok && s < n_sizes; s++) {
        m->ms[s] = bench_point(bk, kern, job, sizes[s], m);
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
    unsigned char copied[LDR_MAX][MAX_DEVICES]; /* the copy was timed (or tried) on that device */
};

/* A row of `work` flops or bytes in `ms`: TFLOPS and % of the fp32 peak, or GB/s. */
static struct bench_row *row_add(struct bench_state *st, const struct probe *p, int dev, const char *impl,
                                 enum bench_what what, const char *op, int flops, long n, double work, double ms)
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
    snprintf(r->op, sizeof r->op, "%s", op);
    r->device_index = dev;
    r->what = what;
    r->flops = flops;
    r->n = n;
    r->ms = ms;
    r->rate = work / (ms * 1e-3) / (flops ? 1e12 : 1e9);
    r->pct_ruler = r->pct_peak = -1;
    if (flops && p->dev[dev].fp32_peak_tflops > 0)
        r->pct_peak = 100.0 * r->rate / p->dev[dev].fp32_peak_tflops;
    return r;
}

/* The yardstick row for `r`: the same size's vendor SGEMM (or the copy) on a device of the
 * same name, else on the first device that has one; NULL when there is none. */
static const struct bench_row *ruler_for(const struct bench_state *st, const struct bench_row *r)
{
    enum bench_what want = r->flops ? BENCH_VENDOR : BENCH_COPY;
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
    if (r->flops)
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

/* The work of one launch at size n: the op's (its flops or bytes), or the copy's bytes read
 * plus written. */
static double bench_work(const struct bench_job *job, long n)
{
    struct hb_case c;
    char why[256];
    if (job->what == BENCH_COPY)
        return (double)n * sizeof(float) * 2;
    const struct op_bench *b = op_get(job->op)->bench;
    return b->point(job->k, n, &c, why, sizeof why) ? 0 : b->work(job->k, &c);
}

/* Adds the rows of one timing, each with its yardstick. */
static void bench_rows(struct bench_state *st, const struct bench_job *job, const char *impl, const char *shown,
                       const struct bench_msg *m)
{
    const long *sizes;
    int n_sizes = bench_sizes(st->o, job->what, job->op, &sizes);
    int flops = bench_flops(job->what, job->op);
    const char *op = job->what == BENCH_COPY ? "copy" : op_name(job->op);
    for (int s = 0; s < n_sizes; s++) {
        struct bench_row *r =
            row_add(st, job->p, job->device, impl, job->what, op, flops, sizes[s], bench_work(job, sizes[s]), m->ms[s]);
        r->have_info = m->have_info;
        r->info = m->info;
        const struct bench_row *ruler = ruler_for(st, r);
        if (ruler)
            r->pct_ruler = 100.0 * (flops ? ruler->ms / r->ms : r->rate / ruler->rate);
        if (!flops && m->have_info && m->info.dram_peak_gbs > 0)
            r->pct_peak = 100.0 * r->rate / m->info.dram_peak_gbs;
        print_row(shown, r);
    }
}

/* Times one kernel of `op`, the vendor library or the copy (k NULL) on device dev of probe p
 * and adds its rows; on failure prints why and counts it. */
static void bench_add(struct bench_state *st, const struct probe *p, int dev, const struct kern_desc *k,
                      enum bench_what what, enum hb_op op)
{
    struct bench_job job = {st->o, p, k, what, op, dev};
    struct bench_msg m;
    char impl[96];
    if (k)
        snprintf(impl, sizeof impl, "%.8s/%.80s", k->lang, k->name);
    else
        snprintf(impl, sizeof impl, "%.60s", what == BENCH_VENDOR ? p->vendor : "device copy");
    char shown[128];
    snprintf(shown, sizeof shown, "%.90s (%.15s)", impl, p->name);
    const long *sizes;
    struct hb_case point;
    bench_sizes(st->o, what, op, &sizes);
    if (k && op_get(op)->bench->point(k, sizes[0], &point, m.err, sizeof m.err)) {
        printf("  %-28s %s\n", shown, m.err); /* not timed, and said why: no failure */
        return;
    }
    if (bench_one(&job, &m)) {
        printf("  %-28s %s\n", shown, m.err);
        st->failures += what == BENCH_KERNEL;
        return;
    }
    bench_rows(st, &job, impl, shown, &m);
}

/* Whether kernel k is a selected, shipped (not canary) kernel of `op` that probe p runs. */
static int selected(const struct bench_opts *o, const struct probe *p, const struct kern_desc *k, enum hb_op op)
{
    char full[128];
    snprintf(full, sizeof full, "%.8s/%.100s", k->lang, k->name);
    return k->op == op && !k->expect && strstr(p->langs, k->lang) &&
           (!o->kernel_glob || !fnmatch(o->kernel_glob, k->name, 0) || !fnmatch(o->kernel_glob, full, 0));
}

/* One op's section. Its yardsticks come first, in this same run: for an op timed in flops, the
 * vendor library on every device (where the op is the one it runs); for one timed in bytes,
 * each device's copy before its kernels, once a run (a Vulkan copy may run on a DMA engine,
 * far below what the SMs move, so each backend's own is shown; the first backend's on a device
 * of the same name is the yardstick). */
static void bench_section(struct bench_state *st, const struct kern_set *ks, enum hb_op op, int first)
{
    const struct op_bench *b = op_get(op)->bench;
    int flops = b->rate == OP_BENCH_FLOPS;
    char heading[512];
    b->heading(heading, sizeof heading, st->o->runs, st->o->reduce_n);
    printf("%s%s\n", first ? "" : "\n", heading);
    if (flops)
        printf("  %-28s %-24s %6s %9s %11s %11s  %4s %7s %s\n", "implementation", "device", "n", "TFLOPS",
               "% of vendor", "% fp32 peak", "regs", "smem B", "occupancy");
    else
        printf("  %-28s %-24s %9s %11s %11s  %4s %7s %s\n", "implementation", "device", "GB/s", "% of copy",
               "% DRAM peak", "regs", "smem B", "occupancy");
    for (int i = 0; flops && op_get(op)->vendor && i < st->n_probes; i++)
        for (int d = 0; st->probes[i].vendor[0] && d < device_count(st, &st->probes[i]); d++)
            bench_add(st, &st->probes[i], d, NULL, BENCH_VENDOR, op);
    for (int i = 0; i < st->n_probes; i++)
        for (int d = 0; d < device_count(st, &st->probes[i]); d++) {
            if (!flops && !st->copied[i][d]) {
                st->copied[i][d] = 1;
                bench_add(st, &st->probes[i], d, NULL, BENCH_COPY, op);
            }
            for (int j = 0; j < ks->n; j++)
                if (selected(st->o, &st->probes[i], &ks->k[j], op))
                    bench_add(st, &st->probes[i], d, &ks->k[j], BENCH_KERNEL, op);
        }
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
    for (int op = 0, first = 1; !code && op < OP_COUNT; op++)
        if (op_get((enum hb_op)op)->bench)
            bench_section(st, &ks, (enum hb_op)op, first), first = 0;
    if (!code) {
        code = bench_outputs(st, err) ? EXIT_USAGE : st->failures ? EXIT_FAILURES : EXIT_OK;
    }
    free(st->rows);
    free(st);
    kern_set_free(&ks);
    return code;
}
