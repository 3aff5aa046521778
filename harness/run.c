/* run.c: plans and runs the conformance groups.
 * Isolation: nothing API-related happens in this process. A probe child lists each
 * backend's devices; each (backend, device, kernel, width) group runs in a child that sets
 * the width's environment, loads the backend and streams results back over a pipe. A
 * child that dies or hangs costs one ERROR row for the case in flight, and a fresh child
 * picks up the next case. References are computed here once per case before any child
 * is forked, so every kernel, backend and width shares them (copy-on-write). */
#include "run.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "baseline.h"
#include "html.h"
#include "probe.h"
#include "case.h"
#include "compare.h"
#include "gen.h"
#include "guard.h"
#include "known.h"
#include "loader.h"
#include "manifest.h"
#include "ref.h"
#include "report.h"

/* Open and kernel load (glslc, JIT, driver start) get this long before the first case. */
#define OPEN_TIMEOUT_MS 120000

/* One case's inputs and references, made once in the parent. */
struct case_data {
    const struct hb_case *c;
    float *in[2];
    size_t in_n[2];
    struct ref_sgemm sg;
    long chunks[8];
    struct ref_reduce red[8];
    int n_red;
    int used;
};

struct ctx {
    const struct run_opts *o;
    struct case_set cases;
    struct kern_set kernels;
    struct known_set known;
    struct case_data *data;
    struct rep_sink sink;
    double kernel_ms, child_ms;
    uint64_t threads_by_backend[LDR_MAX];
    double kernel_ms_by_backend[LDR_MAX];
};

/* ---------- pipe messages ---------- */

enum msg_type { MSG_BEGIN, MSG_RESULT, MSG_GROUP };
struct msg {
    int type;
    int index; /* position in the group's case list */
    struct rep_result r;
};

/* ---------- case data ---------- */

/* sblat3's "rogue" value: what the padding between strided rows holds. Finite and huge, so
 * a kernel that reads it as data is far off, and exact bits to check that it survives. */
#define ROGUE_VALUE (-1.0e10f)

/* Lays a rows x cols matrix out with row stride ld, ROGUE_VALUE in the padding. */
static float *with_stride(const float *compact, long rows, long cols, long ld)
{
    float *out = xcalloc((size_t)rows * ld, sizeof(float));
    for (long r = 0; r < rows; r++)
        for (long j = 0; j < ld; j++)
            out[r * ld + j] = j < cols ? compact[r * cols + j] : ROGUE_VALUE;
    return out;
}

static void prepare_case(struct case_data *d, const struct kern_set *ks)
{
    const struct hb_case *c = d->c;
    if (op_is_gemm(c->op)) {
        /* The same values whatever the strides: references come from the compact matrices. */
        size_t n[2] = {(size_t)c->M * c->K, (size_t)c->K * c->N};
        for (int i = 0; i < 2; i++) {
            d->in[i] = xcalloc(n[i], sizeof(float));
            gen_fill(d->in[i], n[i], c, c->K, i);
            d->in_n[i] = n[i];
        }
        ref_sgemm_compute(&d->sg, d->in[0], d->in[1], c->M, c->N, c->K);
        if (c->op == OP_SGEMM_STRIDED) {
            float *a = with_stride(d->in[0], c->M, c->K, c->lda), *b = with_stride(d->in[1], c->K, c->N, c->ldb);
            free(d->in[0]), free(d->in[1]);
            d->in[0] = a, d->in[1] = b;
            d->in_n[0] = (size_t)c->M * c->lda, d->in_n[1] = (size_t)c->K * c->ldb;
        }
        return;
    }
    d->in_n[0] = (size_t)c->n;
    d->in[0] = xcalloc(d->in_n[0], sizeof(float));
    /* Exact data must sum exactly over the largest chunk of any kernel. */
    long longest = 1;
    for (int i = 0; i < ks->n; i++)
        if (ks->k[i].op == OP_REDUCE && ks->k[i].chunk > longest)
            longest = ks->k[i].chunk;
    gen_fill(d->in[0], d->in_n[0], c, longest < c->n ? longest : c->n, 0);
    for (int i = 0; i < ks->n; i++) {
        const struct kern_desc *k = &ks->k[i];
        if (k->op != OP_REDUCE || !kern_runs_case(k, c))
            continue;
        int have = 0;
        for (int j = 0; j < d->n_red; j++)
            have |= d->chunks[j] == k->chunk;
        if (!have && d->n_red < 8) {
            d->chunks[d->n_red] = k->chunk;
            ref_reduce_compute(&d->red[d->n_red++], d->in[0], c->n, k->chunk);
        }
    }
}

static const struct ref_reduce *reduce_ref(const struct case_data *d, long chunk)
{
    for (int j = 0; j < d->n_red; j++)
        if (d->chunks[j] == chunk)
            return &d->red[j];
    return NULL;
}

static void free_case(struct case_data *d)
{
    free(d->in[0]), free(d->in[1]);
    ref_sgemm_free(&d->sg);
    for (int j = 0; j < d->n_red; j++)
        ref_reduce_free(&d->red[j]);
}

/* ---------- one case in the child ---------- */

struct group {
    const struct probe *p;
    int device;
    struct hb_width_option width;
    const struct kern_desc *k; /* NULL: the vendor library */
    int *cases;                /* indices into ctx->cases */
    int n_cases;
};

static void fill_identity(struct rep_result *r, const struct group *g)
{
    memset(r, 0, sizeof *r);
    cmp_init(&r->cmp);
    snprintf(r->backend, sizeof r->backend, "%s", g->p->name);
    snprintf(r->device, sizeof r->device, "%s", g->p->dev[g->device].name);
    snprintf(r->driver, sizeof r->driver, "%s", g->p->dev[g->device].driver);
    snprintf(r->lang, sizeof r->lang, "%s", g->k ? g->k->lang : "vendor");
    snprintf(r->kernel, sizeof r->kernel, "%s", g->k ? g->k->name : g->p->vendor);
    snprintf(r->note, sizeof r->note, "%s", g->k && g->k->note ? g->k->note : "");
    r->width = g->width.width;
    r->op = g->k ? g->k->op : OP_SGEMM;
}

static void fill_case(struct rep_result *r, const struct hb_case *c)
{
    snprintf(r->case_name, sizeof r->case_name, "%s", c->name);
    r->M = c->M, r->N = c->N, r->K = c->K, r->n = c->n;
    r->lda = c->lda, r->ldb = c->ldb, r->ldc = c->ldc;
    snprintf(r->dist, sizeof r->dist, "%s", case_dist_name(c->dist));
    r->seed = c->seed;
    if (c->note[0] && !r->note[0])
        snprintf(r->note, sizeof r->note, "%s", c->note);
}

static uint64_t fnv1a_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Output rows of a strided case: the padding starts as ROGUE_VALUE and must stay so. */
static void fill_row_padding(float *c, long rows, long cols, long ld)
{
    for (long r = 0; r < rows; r++)
        for (long j = cols; j < ld; j++)
            c[r * ld + j] = ROGUE_VALUE;
}

/* Byte offset of the first padding element that changed, or -1. */
static long row_padding_damage(const float *c, long rows, long cols, long ld)
{
    float rogue = ROGUE_VALUE;
    for (long r = 0; r < rows; r++)
        for (long j = cols; j < ld; j++)
            if (memcmp(&c[r * ld + j], &rogue, sizeof rogue))
                return (r * ld + j) * (long)sizeof(float);
    return -1;
}

static float *compact_rows(const float *c, long rows, long cols, long ld)
{
    float *out = xcalloc((size_t)rows * cols, sizeof(float));
    for (long r = 0; r < rows; r++)
        memcpy(out + r * cols, c + r * ld, (size_t)cols * sizeof(float));
    return out;
}

struct arg {
    const float *data; /* input contents, NULL for the output */
    size_t bytes;
    void *image, *after;
    hb_buf *buf;
};

/* Runs one case; returns nonzero when the backend reported an API error (the child
 * then exits so a sticky device error cannot leak into the next case). */
static int run_case(const struct hb_backend *be, hb_ctx *hctx, hb_kern *kern, const struct group *g,
                    const struct case_data *d, int repeats, struct rep_result *r)
{
    const struct hb_case *c = d->c;
    const struct kern_desc *k = g->k;
    struct hb_err err = {{0}};
    const struct ref_reduce *red = c->op == OP_REDUCE ? reduce_ref(d, k->chunk) : NULL;
    unsigned grid[3] = {1, 1, 1};
    if (k && kern_grid(k, c, grid, &err)) {
        r->cmp.classes |= CLS_API;
        snprintf(r->why, sizeof r->why, "%.250s", err.msg);
        return 0;
    }
    if (k)
        r->threads = (uint64_t)grid[0] * grid[1] * grid[2] * k->block[0] * k->block[1] * k->block[2];
    struct arg args[3];
    int gemm = op_is_gemm(c->op), strided = c->op == OP_SGEMM_STRIDED;
    long ldc = strided ? c->ldc : c->N;
    int n_args = gemm ? 3 : 2, out = n_args - 1;
    memset(args, 0, sizeof args);
    args[0].data = d->in[0], args[0].bytes = d->in_n[0] * sizeof(float);
    if (gemm) {
        args[1].data = d->in[1], args[1].bytes = d->in_n[1] * sizeof(float);
        args[2].bytes = (size_t)c->M * ldc * sizeof(float);
    } else {
        args[1].bytes = (size_t)red->blocks * sizeof(float);
    }
    struct hb_args ha;
    memset(&ha, 0, sizeof ha);
    ha.n_bufs = n_args;
    if (gemm) {
        ha.n_ints = strided ? 6 : 3;
        ha.ints[0] = (int32_t)c->M, ha.ints[1] = (int32_t)c->N, ha.ints[2] = (int32_t)c->K;
        ha.ints[3] = (int32_t)c->lda, ha.ints[4] = (int32_t)c->ldb, ha.ints[5] = (int32_t)c->ldc;
    } else {
        ha.n_ints = 1;
        ha.ints[0] = (int32_t)c->n;
    }
    int api_failed = 0;
    const char *api_call = NULL;
    for (int i = 0; i < n_args; i++) {
        size_t total = grd_image_bytes(args[i].bytes);
        args[i].image = xcalloc(total, 1);
        args[i].after = xcalloc(total, 1);
        grd_fill(args[i].image, args[i].bytes, args[i].data);
        if (strided && i == out)
            fill_row_padding((float *)((char *)args[i].image + GRD_BYTES), c->M, c->N, ldc);
        ha.offsets[i] = GRD_BYTES;
        if (be->alloc(hctx, total, &args[i].buf) != HB_OK) {
            api_call = "alloc";
            api_failed = 1;
            break;
        }
        ha.bufs[i] = args[i].buf;
        if (be->upload(hctx, args[i].buf, 0, args[i].image, total) != HB_OK) {
            api_call = "upload";
            api_failed = 1;
            break;
        }
    }
    float *first = NULL;
    for (int rep = 0; rep < repeats && !api_failed; rep++) {
        size_t out_total = grd_image_bytes(args[out].bytes);
        if (rep) {
            /* Fresh poison before every launch: a kernel must write all of C every time. */
            if (be->upload(hctx, args[out].buf, 0, args[out].image, out_total) != HB_OK) {
                api_call = "upload", api_failed = 1;
                break;
            }
        }
        double ms = 0;
        int rc = k ? be->launch(hctx, kern, grid, &ha, &ms) : be->vendor_sgemm(hctx, &ha, &ms);
        if (rc != HB_OK) {
            api_call = k ? "launch" : "vendor sgemm";
            api_failed = 1;
            break;
        }
        /* The fastest launch: the first carries lazy module loading and library set-up. */
        if (!rep || ms < r->kernel_ms)
            r->kernel_ms = ms;
        for (int i = 0; i < n_args; i++) {
            size_t total = grd_image_bytes(args[i].bytes);
            if (be->download(hctx, args[i].buf, 0, args[i].after, total) != HB_OK) {
                api_call = "download", api_failed = 1;
                break;
            }
            long off;
            if (r->cmp.oob_buffer < 0 && grd_check(args[i].after, args[i].bytes, &off)) {
                r->cmp.classes |= CLS_OOB;
                r->cmp.oob_buffer = i;
                r->cmp.oob_offset = off;
            }
            if (args[i].data && memcmp((char *)args[i].after + GRD_BYTES, args[i].data, args[i].bytes))
                r->cmp.classes |= CLS_INPUT_MODIFIED;
        }
        if (api_failed)
            break;
        float *got = (float *)((char *)args[out].after + GRD_BYTES);
        long pad_at;
        if (strided && r->cmp.oob_buffer < 0 && (pad_at = row_padding_damage(got, c->M, c->N, ldc)) >= 0) {
            r->cmp.classes |= CLS_OOB;
            r->cmp.oob_buffer = out;
            r->cmp.oob_offset = pad_at;
        }
        if (!rep) {
            unsigned before = r->cmp.classes;
            long oob_buffer = r->cmp.oob_buffer, oob_offset = r->cmp.oob_offset;
            if (strided) {
                float *compact = compact_rows(got, c->M, c->N, ldc);
                cmp_sgemm(&d->sg, compact, c->dist == DIST_EXACT, &r->cmp);
                free(compact);
            } else if (gemm)
                cmp_sgemm(&d->sg, got, c->dist == DIST_EXACT, &r->cmp);
            else
                cmp_reduce(red, got, c->dist == DIST_EXACT, &r->cmp);
            r->cmp.classes |= before;
            r->cmp.oob_buffer = oob_buffer, r->cmp.oob_offset = oob_offset;
            r->output_hash = fnv1a_bytes(got, args[out].bytes);
            first = xcalloc(args[out].bytes ? args[out].bytes : 1, 1);
            memcpy(first, got, args[out].bytes);
        } else if (memcmp(first, got, args[out].bytes)) {
            r->cmp.classes |= CLS_NONDET;
        }
    }
    if (api_failed) {
        r->cmp.classes |= CLS_API;
        snprintf(r->why, sizeof r->why, "%s: %s", api_call, be->last_error(hctx));
    }
    free(first);
    for (int i = 0; i < n_args; i++) {
        if (args[i].buf)
            be->release(hctx, args[i].buf);
        free(args[i].image), free(args[i].after);
    }
    return api_failed;
}

static void send_group_row(int fd, const struct group *g, enum hb_verdict v, unsigned classes, const char *why)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_GROUP;
    fill_identity(&m.r, g);
    m.r.group_row = 1;
    snprintf(m.r.case_name, sizeof m.r.case_name, "*");
    m.r.verdict = v;
    m.r.cmp.classes = classes;
    snprintf(m.r.why, sizeof m.r.why, "%s", why);
    prb_write_full(fd, &m, sizeof m);
}

static void group_child(struct ctx *cx, const struct group *g, int start, int fd)
{
    if (g->width.env[0])
        putenv(xstrdup(g->width.env));
    if (cx->o->schedule)
        setenv("HB_SIM_SCHEDULE", cx->o->schedule, 1);
    struct hb_err err = {{0}};
    const struct hb_backend *be = ldr_open(g->p->name, &err);
    if (!be) {
        send_group_row(fd, g, V_ERROR, CLS_API, err.msg);
        _exit(0);
    }
    hb_ctx *hctx = NULL;
    char msg[512] = "";
    int rc = be->open(&hctx, g->device, g->width.width, msg, sizeof msg);
    if (rc != HB_OK) {
        send_group_row(fd, g, rc == HB_UNSUPPORTED ? V_SKIP : V_ERROR, rc == HB_UNSUPPORTED ? 0 : CLS_API, msg);
        _exit(0);
    }
    hb_kern *kern = NULL;
    if (g->k) {
        char *build = xstrdup(path_exe_dir());
        struct hb_kernel_spec spec;
        kern_spec(g->k, build, &spec);
        rc = be->load(hctx, &spec, &kern);
        if (rc != HB_OK) {
            send_group_row(fd, g, rc == HB_UNSUPPORTED ? V_SKIP : V_ERROR, rc == HB_UNSUPPORTED ? 0 : CLS_API,
                           be->last_error(hctx));
            be->close(hctx);
            _exit(0);
        }
    }
    int expected_bad = g->k ? kern_expected_bad(g->k, g->width.width) : 0;
    for (int i = start; i < g->n_cases; i++) {
        struct msg m;
        memset(&m, 0, sizeof m);
        m.type = MSG_BEGIN;
        m.index = i;
        prb_write_full(fd, &m, sizeof m);
        const struct case_data *d = &cx->data[g->cases[i]];
        m.type = MSG_RESULT;
        fill_identity(&m.r, g);
        fill_case(&m.r, d->c);
        double t0 = now_ms();
        int sticky = run_case(be, hctx, kern, g, d, cx->o->repeats, &m.r);
        m.r.child_ms = now_ms() - t0;
        char kernel_name[128], verdict_why[256];
        snprintf(kernel_name, sizeof kernel_name, "%s/%s", m.r.lang, m.r.kernel);
        const struct known_bug *bug = known_match(&cx->known, m.r.backend, m.r.device, kernel_name, d->c->name);
        m.r.verdict = cmp_verdict(&m.r.cmp, expected_bad || bug, g->k && !bug ? g->k->expect : 0, verdict_why,
                                  sizeof verdict_why);
        if (bug && m.r.verdict == V_PASS) {
            m.r.verdict = V_XPASS;
            snprintf(verdict_why, sizeof verdict_why, "known bug no longer reproduces: remove %.100s:%d", bug->file,
                     bug->line);
        } else if (bug && m.r.verdict == V_XFAIL) {
            snprintf(verdict_why, sizeof verdict_why, "known bug: %.200s", bug->reason);
        }
        if (m.r.why[0]) {
            char api_why[sizeof m.r.why];
            memcpy(api_why, m.r.why, sizeof api_why);
            snprintf(m.r.why, sizeof m.r.why, "%.150s; %.100s", api_why, verdict_why);
        } else {
            snprintf(m.r.why, sizeof m.r.why, "%s", verdict_why);
        }
        prb_write_full(fd, &m, sizeof m);
        if (sticky)
            _exit(0); /* a fresh child gets a fresh device context */
    }
    if (kern)
        be->unload(hctx, kern);
    be->close(hctx);
    _exit(0);
}

/* ---------- compute-sanitizer ---------- */

/* Replaces the forked child with `compute-sanitizer --tool T <this harness> <same command
 * line> --group-child SPEC`: the sanitized process rebuilds the same group and streams its
 * results over the inherited pipe (HB_CHILD_FD). Never returns. */
static void sanitize_exec(struct ctx *cx, const struct group *g, int start, int fd, const char *log)
{
    const struct run_opts *o = cx->o;
    char spec[256], fd_text[16];
    snprintf(spec, sizeof spec, "%s:%d:%d:%s/%s:%d", g->p->name, g->device, g->width.width, g->k->lang, g->k->name,
             start);
    snprintf(fd_text, sizeof fd_text, "%d", fd);
    setenv("HB_CHILD_FD", fd_text, 1);
    const char *tool = getenv("COMPUTE_SANITIZER") ? getenv("COMPUTE_SANITIZER") : "compute-sanitizer";
    char exe[4096];
    snprintf(exe, sizeof exe, "%s/harness", path_exe_dir());
    char **argv = xcalloc((size_t)o->argc + 12, sizeof *argv);
    int n = 0;
    argv[n++] = (char *)tool;
    argv[n++] = "--tool";
    argv[n++] = (char *)o->sanitize;
    argv[n++] = "--log-file";
    argv[n++] = (char *)log;
    argv[n++] = "--print-limit";
    argv[n++] = "20";
    argv[n++] = exe;
    for (int i = 1; i < o->argc; i++) {
        if (!strcmp(o->argv[i], "--sanitize")) {
            i++;
            continue;
        }
        argv[n++] = o->argv[i];
    }
    argv[n++] = "--group-child";
    argv[n++] = spec;
    execvp(tool, argv);
    char why[256];
    snprintf(why, sizeof why, "exec %s: %s (is CUDA's compute-sanitizer on PATH?)", tool, strerror(errno));
    send_group_row(fd, g, V_ERROR, CLS_API, why);
    _exit(0);
}

/* Reads the tool's summary: racecheck "RACECHECK SUMMARY: N hazards displayed (...)",
 * memcheck "ERROR SUMMARY: N errors". Returns N (-1 when there is no summary). */
static long sanitize_findings(const char *log, char *summary, size_t len)
{
    FILE *f = fopen(log, "r");
    long found = -1;
    summary[0] = 0;
    if (!f)
        return -1;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "RACECHECK SUMMARY: ");
        if (!at)
            at = strstr(line, "ERROR SUMMARY: ");
        if (!at)
            continue;
        const char *num = strstr(at, ": ") + 2;
        found = strtol(num, NULL, 10);
        snprintf(summary, len, "%s", str_trim(line + (line[0] == '=' ? strspn(line, "= ") : 0)));
    }
    fclose(f);
    return found;
}

/* ---------- one group in the parent ---------- */

/* SIGINT/SIGTERM: stop after killing the child in flight; the reports already hold every
 * result so far and are valid as they stand. */
static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    interrupted = sig;
}

static void add_result(struct ctx *cx, const struct rep_result *r, int backend_slot)
{
    rep_add(&cx->sink, r);
    cx->kernel_ms += r->kernel_ms;
    cx->child_ms += r->child_ms;
    if (backend_slot >= 0) {
        cx->threads_by_backend[backend_slot] += r->threads;
        cx->kernel_ms_by_backend[backend_slot] += r->kernel_ms;
    }
    if (!cx->o->quiet || verdict_fails_run(r->verdict) || r->verdict == V_SKIP)
        if (r->verdict != V_PASS)
            rep_print_line(stdout, r);
    fflush(stdout);
}

static const char *signal_text(int sig)
{
    const char *s = strsignal(sig);
    return s ? s : "signal";
}

static void run_group(struct ctx *cx, const struct group *g, int backend_slot)
{
    int next = 0, caught = 0, ran = 0, passed = 0, stop = 0;
    double t_group = now_ms();
    int expected_bad = g->k ? kern_expected_bad(g->k, g->width.width) : 0;
    while (next < g->n_cases && !stop) {
        int fds[2];
        if (pipe(fds)) {
            fprintf(stderr, "harness: pipe: %s\n", strerror(errno));
            return;
        }
        char log[64] = "";
        if (cx->o->sanitize)
            snprintf(log, sizeof log, "/tmp/hb-sanitize-%d-%d.log", (int)getpid(), next);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL);
            if (cx->o->sanitize)
                sanitize_exec(cx, g, next, fds[1], log);
            group_child(cx, g, next, fds[1]);
        }
        close(fds[1]);
        int in_flight = -1, progressed = 0, timed_out = 0;
        double case_start = now_ms();
        double timeout_s = g->k && g->k->timeout_s ? (double)g->k->timeout_s : cx->o->timeout_s;
        int timeout_ms = (int)(timeout_s * 1000);
        for (;;) {
            struct msg m;
            int rc = prb_read_full(fds[0], &m, sizeof m, in_flight < 0 ? OPEN_TIMEOUT_MS : timeout_ms);
            if (rc == -1) {
                timed_out = 1;
                kill(pid, SIGKILL);
                break;
            }
            if (rc == -2 && interrupted) {
                kill(pid, SIGKILL);
                stop = 1;
                break;
            }
            if (rc != 1)
                break;
            if (m.type == MSG_BEGIN) {
                in_flight = m.index;
                case_start = now_ms();
                continue;
            }
            add_result(cx, &m.r, backend_slot);
            progressed = 1;
            if (m.type == MSG_GROUP) {
                stop = 1;
                continue;
            }
            ran++;
            passed += m.r.verdict == V_PASS;
            caught |= m.r.verdict == V_XFAIL;
            in_flight = -1;
            next = m.index + 1;
        }
        close(fds[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (log[0]) {
            /* The tool's findings for this child: a race or a bad access is a verdict. */
            char summary[256];
            long findings = sanitize_findings(log, summary, sizeof summary);
            unlink(log);
            if (findings != 0) {
                struct rep_result r;
                fill_identity(&r, g);
                r.group_row = 1;
                snprintf(r.case_name, sizeof r.case_name, "%s", cx->o->sanitize);
                r.cmp.classes = findings < 0 ? CLS_API : !strcmp(cx->o->sanitize, "racecheck") ? CLS_NONDET : CLS_OOB;
                char verdict_why[256];
                r.verdict = cmp_verdict(&r.cmp, expected_bad, g->k->expect, verdict_why, sizeof verdict_why);
                snprintf(r.why, sizeof r.why, "compute-sanitizer %s: %.120s; %.100s", cx->o->sanitize,
                         findings < 0 ? "no summary in its log" : summary, verdict_why);
                add_result(cx, &r, backend_slot);
                caught |= r.verdict == V_XFAIL;
            }
        }
        if (stop || next >= g->n_cases)
            break;
        char why[256];
        unsigned cls;
        if (timed_out) {
            cls = CLS_TIMEOUT;
            snprintf(why, sizeof why, "no answer in %.0f s: killed", in_flight < 0 ? OPEN_TIMEOUT_MS / 1e3 : timeout_s);
        } else if (WIFSIGNALED(status)) {
            cls = CLS_CRASH;
            snprintf(why, sizeof why, "child died: %s (signal %d)", signal_text(WTERMSIG(status)), WTERMSIG(status));
        } else if (in_flight < 0) {
            /* Clean exit after an API error: restart at the next case. */
            if (progressed)
                continue;
            cls = CLS_API;
            snprintf(why, sizeof why, "child exited with status %d before its first case", WEXITSTATUS(status));
        } else {
            cls = CLS_CRASH;
            snprintf(why, sizeof why, "child exited with status %d mid-case", WEXITSTATUS(status));
        }
        struct rep_result r;
        fill_identity(&r, g);
        r.cmp.classes = cls;
        if (in_flight < 0) {
            /* Died before any case: the whole group is unusable. */
            r.group_row = 1;
            snprintf(r.case_name, sizeof r.case_name, "*");
            snprintf(r.why, sizeof r.why, "%s", why);
            r.verdict = V_ERROR;
            add_result(cx, &r, backend_slot);
            break;
        }
        fill_case(&r, cx->data[g->cases[in_flight]].c);
        r.child_ms = now_ms() - case_start;
        char verdict_why[256];
        r.verdict = cmp_verdict(&r.cmp, expected_bad, g->k ? g->k->expect : 0, verdict_why, sizeof verdict_why);
        snprintf(r.why, sizeof r.why, "%.120s; %.120s", why, verdict_why);
        add_result(cx, &r, backend_slot);
        ran++;
        caught |= r.verdict == V_XFAIL;
        next = in_flight + 1;
        /* A canary that crashed or hung as it should has been caught: running its other
         * cases would only repeat the crash. */
        if (r.verdict == V_XFAIL)
            break;
    }
    /* XPASS only when the canary ran clean everywhere: an ERROR is no pass. */
    if (expected_bad && ran && !caught && passed == ran && !interrupted) {
        struct rep_result r;
        fill_identity(&r, g);
        r.group_row = 1;
        snprintf(r.case_name, sizeof r.case_name, "*");
        r.verdict = V_XPASS;
        char wanted[128];
        class_names(g->k->expect, wanted, sizeof wanted);
        snprintf(r.why, sizeof r.why, "known-bad kernel passed every case at width %d: the harness missed %s",
                 g->width.width, g->k->expect ? wanted : "its width bug");
        add_result(cx, &r, backend_slot);
    }
    if (!cx->o->quiet) {
        printf("  done    %s %s w%d %s/%s: %d cases in %.1f s\n", g->p->name, g->p->dev[g->device].name,
               g->width.width, g->k ? g->k->lang : "vendor", g->k ? g->k->name : g->p->vendor, ran,
               (now_ms() - t_group) / 1e3);
        fflush(stdout);
    }
}

/* ---------- planning ---------- */

static int lang_listed(const char *langs, const char *lang)
{
    size_t n = strlen(lang);
    for (const char *p = langs; (p = strstr(p, lang)); p += n)
        if ((p == langs || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

static int race_detector(const struct run_opts *o)
{
    return o->sanitize && !strcmp(o->sanitize, "racecheck");
}

static int width_selected(const struct run_opts *o, int w)
{
    if (!o->n_widths)
        return 1;
    for (int i = 0; i < o->n_widths; i++)
        if (o->widths[i] == w)
            return 1;
    return 0;
}

static int kernel_selected(const struct run_opts *o, const char *lang, const char *name)
{
    if (!o->kernel_glob)
        return 1;
    char full[128];
    snprintf(full, sizeof full, "%s/%s", lang, name);
    return !fnmatch(o->kernel_glob, name, 0) || !fnmatch(o->kernel_glob, full, 0);
}

static int load_inputs(struct ctx *cx, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    if (!o->no_builtin) {
        char *dir = path_join(path_root_dir(), "kernels");
        int rc = kern_discover(dir, &cx->kernels, err);
        free(dir);
        if (rc)
            return -1;
    }
    for (int i = 0; i < o->n_manifests; i++)
        if (kern_parse_file(o->manifests[i], &cx->kernels, err))
            return -1;
    char *cases_path;
    if (o->cases) {
        cases_path = xstrdup(o->cases);
    } else {
        const char *tier = o->tier ? o->tier : "quick";
        if (strcmp(tier, "quick") && strcmp(tier, "standard") && strcmp(tier, "nightly")) {
            err_set(err, "unknown tier '%s' (quick, standard, nightly)", tier);
            return -1;
        }
        char rel[64];
        snprintf(rel, sizeof rel, "cases/%s.cases", tier);
        cases_path = path_join(path_root_dir(), rel);
    }
    int rc = case_parse_file(cases_path, &cx->cases, err);
    free(cases_path);
    if (rc)
        return rc;
    char *known_path = o->known_bugs ? xstrdup(o->known_bugs) : path_join(path_root_dir(), "cases/known-bugs");
    rc = known_parse_file(known_path, &cx->known, err);
    free(known_path);
    return rc;
}

static int probe_selected(const struct run_opts *o, struct probe *probes, struct hb_err *err, int *no_device)
{
    char names[LDR_MAX][16];
    int n = ldr_known(names), count = 0;
    *no_device = 0;
    if (o->backend && !ldr_is_known(o->backend)) {
        char list[256] = "";
        for (int i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
        err_set(err, "unknown backend '%s' (known: %s)", o->backend, list);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (o->backend && strcmp(o->backend, names[i]))
            continue;
        prb_probe(names[i], &probes[count]);
        struct probe *p = &probes[count++];
        if (p->count <= 0) {
            const char *why = p->count < 0 ? p->err : p->err[0] ? p->err : "no device found";
            if (o->backend) {
                err_set(err, "backend %s: no usable device: %s", p->name, why);
                *no_device = 1;
                return -1;
            }
            printf("  backend %s skipped: %s\n", p->name, why);
        }
    }
    return count;
}

/* Marks the cases this run (or shard) uses; with `only`, just the cases that kernel runs.
 * Returns how many. */
static int select_cases(struct ctx *cx, const struct kern_desc *only)
{
    const struct run_opts *o = cx->o;
    cx->data = xcalloc((size_t)cx->cases.n, sizeof *cx->data);
    int selected = 0, shard_ordinal = 0;
    for (int i = 0; i < cx->cases.n; i++) {
        struct case_data *d = &cx->data[i];
        d->c = &cx->cases.c[i];
        if (o->case_glob && fnmatch(o->case_glob, d->c->name, 0))
            continue;
        for (int k = 0; k < cx->kernels.n; k++)
            d->used |= kern_runs_case(&cx->kernels.k[k], d->c) &&
                       kernel_selected(o, cx->kernels.k[k].lang, cx->kernels.k[k].name);
        d->used |= d->c->op == OP_SGEMM && !o->kernel_glob;
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

static void prepare_selected(struct ctx *cx)
{
    for (int i = 0; i < cx->cases.n; i++)
        if (cx->data[i].used)
            prepare_case(&cx->data[i], &cx->kernels);
}

/* A case whose buffers (with guards, twice: image and read-back) cannot fit a device is bad
 * input, said before anything runs, not an allocation ERROR halfway through. */
static int check_memory(const struct ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err)
{
    for (int i = 0; i < cx->cases.n; i++) {
        const struct case_data *d = &cx->data[i];
        if (!d->used)
            continue;
        const struct hb_case *c = d->c;
        double bytes = op_is_gemm(c->op) ? 4.0 * ((double)c->M * (c->lda > c->K ? c->lda : c->K) +
                                                  (double)c->K * (c->ldb > c->N ? c->ldb : c->N) +
                                                  (double)c->M * (c->ldc > c->N ? c->ldc : c->N))
                                         : 4.0 * (double)c->n * 1.01;
        /* The host holds inputs, float and float64 references and gauges: about 6x. */
        double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
        if (host > 0 && 6.0 * bytes > host) {
            err_set(err, "%s:%d: case %s needs about %.1f GiB of host memory for its references; this host has %.1f GiB",
                    c->file, c->line, c->name, 6.0 * bytes / 1073741824.0, host / 1073741824.0);
            return -1;
        }
        for (int b = 0; b < n_probes; b++)
            for (int dv = 0; dv < probes[b].count; dv++) {
                double have = (double)probes[b].dev[dv].global_mem_bytes;
                if (have > 0 && bytes + 3.0 * GRD_BYTES * 3 > have) {
                    err_set(err, "%s:%d: case %s needs %.1f GiB of buffers; %s device %s has %.1f GiB", c->file, c->line,
                            c->name, bytes / 1073741824.0, probes[b].name, probes[b].dev[dv].name, have / 1073741824.0);
                    return -1;
                }
            }
    }
    return 0;
}

static void print_timing(struct ctx *cx, const struct probe *probes, int n_probes, double ref_ms, double total_ms)
{
    double harness_ms = total_ms - ref_ms - cx->kernel_ms;
    printf("Where the time went: %.1f s in all; references (OpenBLAS, float64) %.1f s; kernels on the "
           "device %.1f s; harness (data movement, checks, process starts) %.1f s\n",
           total_ms / 1e3, ref_ms / 1e3, cx->kernel_ms / 1e3, harness_ms / 1e3);
    for (int i = 0; i < n_probes; i++)
        if (!strcmp(probes[i].name, "sim") && cx->kernel_ms_by_backend[i] > 0)
            printf("Emulator: %.3g emulated threads per second (%llu threads in %.1f s of launches)\n",
                   cx->threads_by_backend[i] / (cx->kernel_ms_by_backend[i] / 1e3),
                   (unsigned long long)cx->threads_by_backend[i], cx->kernel_ms_by_backend[i] / 1e3);
}


/* The far side of sanitize_exec: rebuilds one group from its spec and runs it, streaming
 * to the inherited pipe. */
static int run_group_child(struct ctx *cx, struct hb_err *err)
{
    const struct run_opts *o = cx->o;
    char backend[16], kernel[128];
    int device, width, start, used = 0;
    const char *fd_text = getenv("HB_CHILD_FD");
    if (!fd_text || sscanf(o->group_child, "%15[^:]:%d:%d:%127[^:]:%d%n", backend, &device, &width, kernel, &start, &used) != 5 ||
        o->group_child[used]) {
        err_set(err, "--group-child %s: internal option, expected B:D:W:lang/kernel:start and HB_CHILD_FD", o->group_child);
        return EXIT_USAGE;
    }
    struct probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", backend);
    const struct hb_backend *be = ldr_open(backend, err);
    if (!be)
        return EXIT_NO_DEVICE;
    p.count = be->list_devices(p.dev, MAX_DEVICES, p.err, sizeof p.err);
    struct group g = {&p, device, {width, ""}, NULL, NULL, 0};
    for (int i = 0; i < cx->kernels.n; i++) {
        char full[160];
        snprintf(full, sizeof full, "%s/%s", cx->kernels.k[i].lang, cx->kernels.k[i].name);
        if (!strcmp(full, kernel))
            g.k = &cx->kernels.k[i];
    }
    if (!g.k || device >= p.count) {
        err_set(err, "--group-child %s: no such kernel or device", o->group_child);
        return EXIT_USAGE;
    }
    select_cases(cx, g.k);
    prepare_selected(cx);
    g.cases = xcalloc((size_t)cx->cases.n, sizeof *g.cases);
    for (int i = 0; i < cx->cases.n; i++)
        if (cx->data[i].used && kern_runs_case(g.k, cx->data[i].c))
            g.cases[g.n_cases++] = i;
    group_child(cx, &g, start, atoi(fd_text));
    return EXIT_OK; /* not reached: group_child exits */
}

int run_conformance(const struct run_opts *o, struct hb_err *err)
{
    double t0 = now_ms();
    struct ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    if (load_inputs(&cx, err))
        return EXIT_USAGE;
    if (o->group_child)
        return run_group_child(&cx, err);
    struct probe probes[LDR_MAX];
    int no_device;
    int n_probes = probe_selected(o, probes, err, &no_device);
    if (n_probes < 0)
        return no_device ? EXIT_NO_DEVICE : EXIT_USAGE;

    /* References for every case some selected kernel will run. */
    double t_ref = now_ms();
    int selected_cases = select_cases(&cx, NULL);
    if (check_memory(&cx, probes, n_probes, err))
        return EXIT_USAGE;
    prepare_selected(&cx);
    double ref_ms = now_ms() - t_ref;
    if (rep_open(&cx.sink, o->json, o->junit, err))
        return EXIT_USAGE;
    printf("harness: %d cases, %d kernels; references in %.1f s (%s)\n", selected_cases, cx.kernels.n,
           ref_ms / 1e3, ref_library());
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    for (int b = 0; b < n_probes && !interrupted; b++) {
        const struct probe *p = &probes[b];
        for (int dv = 0; dv < p->count && !interrupted; dv++)
            for (int w = 0; (o->device < 0 || o->device == dv) && w < p->dev[dv].n_widths && !interrupted; w++) {
                if (!width_selected(o, p->dev[dv].widths[w].width))
                    continue;
                printf("%s: %s (%s), width %d\n", p->name, p->dev[dv].name, p->dev[dv].driver,
                       p->dev[dv].widths[w].width);
                /* Kernels in manifest order, then the vendor library as a second oracle. */
                for (int k = -1; k < cx.kernels.n && !interrupted; k++) {
                    struct group g = {p, dv, p->dev[dv].widths[w], NULL, NULL, 0};
                    if (k >= 0) {
                        g.k = &cx.kernels.k[k];
                        if (!lang_listed(p->langs, g.k->lang) || !kernel_selected(o, g.k->lang, g.k->name))
                            continue;
                    } else if (!p->vendor[0] || o->sanitize || !kernel_selected(o, "vendor", p->vendor)) {
                        continue;
                    }
                    if (g.k && g.k->needs_racecheck && !race_detector(o)) {
                        struct rep_result r;
                        fill_identity(&r, &g);
                        r.group_row = 1;
                        snprintf(r.case_name, sizeof r.case_name, "*");
                        r.verdict = V_SKIP;
                        snprintf(r.why, sizeof r.why, "needs a race detector: run with --sanitize racecheck");
                        add_result(&cx, &r, b);
                        continue;
                    }
                    g.cases = xcalloc((size_t)cx.cases.n, sizeof *g.cases);
                    for (int i = 0; i < cx.cases.n; i++) {
                        const struct case_data *d = &cx.data[i];
                        if (d->used && (g.k ? kern_runs_case(g.k, d->c) : d->c->op == OP_SGEMM))
                            g.cases[g.n_cases++] = i;
                    }
                    if (g.n_cases)
                        run_group(&cx, &g, b);
                    free(g.cases);
                }
            }
    }
    if (interrupted)
        printf("\nharness: interrupted by signal %d: reports hold every result so far\n", (int)interrupted);
    print_timing(&cx, probes, n_probes, ref_ms, now_ms() - t0);
    int code = interrupted ? EXIT_FAILURES : rep_failed(&cx.sink) ? EXIT_FAILURES : EXIT_OK;
    if (!cx.sink.n) {
        printf("harness: nothing ran (no kernel, case and device matched)\n");
        code = EXIT_FAILURES;
    }
    /* After-run outputs read only the records: the page, the baseline record, the gate. */
    if (o->html && html_write(o->html, &cx.sink, err)) {
        code = EXIT_USAGE;
    } else if (o->record && base_record(o->record, &cx.sink, err)) {
        code = EXIT_USAGE;
    } else if (o->compare) {
        struct base_opts bo;
        base_opts_init(&bo);
        bo.fail_on_bits = o->fail_on_bits;
        if (o->perf_pct > 0)
            bo.perf_pct = o->perf_pct, bo.fail_on_perf = 1;
        int failing = base_compare(o->compare, &cx.sink, &bo, stdout, err);
        if (failing < 0)
            code = EXIT_USAGE;
        else if (failing && code == EXIT_OK)
            code = EXIT_FAILURES;
    }
    /* The table and the closing "N passed, N failed, N skipped" line come last. */
    rep_print_summary(stdout, &cx.sink);
    rep_close(&cx.sink);
    for (int i = 0; i < cx.cases.n; i++)
        if (cx.data[i].used)
            free_case(&cx.data[i]);
    free(cx.data);
    case_set_free(&cx.cases);
    kern_set_free(&cx.kernels);
    known_free(&cx.known);
    return code;
}

int run_list(const struct run_opts *o, struct hb_err *err)
{
    struct ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    if (load_inputs(&cx, err))
        return EXIT_USAGE;
    char names[LDR_MAX][16];
    int n = ldr_known(names);
    printf("Backends\n");
    for (int i = 0; i < n; i++) {
        struct probe p;
        prb_probe(names[i], &p);
        if (p.count < 0) {
            printf("  %-8s %s\n", p.name, p.err);
            continue;
        }
        printf("  %-8s runs %s%s%s; %d device(s)%s%s\n", p.name, p.langs, p.vendor[0] ? "; vendor library " : "",
               p.vendor, p.count, p.count ? "" : ": ", p.count ? "" : (p.err[0] ? p.err : "none found"));
        for (int d = 0; d < p.count; d++) {
            printf("    [%d] %s | %s | %.1f GiB, %u KiB shared/block | widths", d, p.dev[d].name, p.dev[d].driver,
                   p.dev[d].global_mem_bytes / 1073741824.0, p.dev[d].shared_mem_per_block / 1024);
            for (int w = 0; w < p.dev[d].n_widths; w++)
                printf(" %d%s%s%s", p.dev[d].widths[w].width, p.dev[d].widths[w].env[0] ? " (" : "",
                       p.dev[d].widths[w].env, p.dev[d].widths[w].env[0] ? ")" : "");
            printf("\n");
        }
    }
    printf("Kernels\n");
    for (int i = 0; i < cx.kernels.n; i++) {
        const struct kern_desc *k = &cx.kernels.k[i];
        char widths[64], expect[128] = "pass";
        kern_widths_str(k, widths, sizeof widths);
        if (k->expect)
            class_names(k->expect, expect, sizeof expect);
        printf("  %-5s/%-24s %-6s block %ux%ux%u widths %-10s expect %-10s %s\n", k->lang, k->name, op_name(k->op),
               k->block[0], k->block[1], k->block[2], widths, expect, k->note ? k->note : "");
    }
    printf("Cases: %d in %s; %d known bugs listed\n", cx.cases.n, o->cases ? o->cases : o->tier ? o->tier : "quick",
           cx.known.n);
    known_free(&cx.known);
    case_set_free(&cx.cases);
    kern_set_free(&cx.kernels);
    return EXIT_OK;
}
