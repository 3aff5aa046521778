/* testbed.c: one case in CUTLASS testbed's phases. Initialize: every buffer between guard bands
 * (guard.h), inputs in, the output poisoned and padded, all uploaded to pooled device buffers.
 * Run: each launch from a fresh upload of the output, so every launch must write all of it.
 * Verify: guards, inputs and padding intact, the op's comparison on the first launch, bitwise
 * equality on later ones. Fills the row's figures and the phases' times; decides no verdict. */
#include "testbed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "guard.h"
#include "protocol.h"

struct tb_buffer {
    const float *data; /* input contents; NULL for the output */
    size_t bytes;
    void *image, *after; /* what is uploaded, what came back */
    hb_buf *buf;
};

struct testbed {
    const struct hb_backend *be;
    hb_ctx *ctx;
    hb_kern *kern;
    const struct kern_desc *k;
    const struct case_data *d;
    const struct op_desc *op;
    struct op_layout lay;
    struct tb_buffer b[HB_MAX_BUF_ARGS];
    struct hb_args args;
    unsigned grid[3];
    float *first;            /* the first launch's output, for the repeat check */
    const char *failed_call; /* the backend call that failed, NULL while none has */
    struct tb_pool *pool;
    double *phase_ms, mark;  /* the caller's sums by phase; when the current phase began */
    double *device_ms;       /* the caller's sum of every launch's device time */
};

/* The time since the last mark goes to phase p. */
static void tb_phase(struct testbed *t, enum msg_phase p)
{
    double now = now_ms();
    t->phase_ms[p] += now - t->mark;
    t->mark = now;
}

void tb_pool_init(struct tb_pool *pool, const char *backend, int sanitized)
{
    memset(pool, 0, sizeof *pool);
    /* CUDA and HIP kernels see raw pointers, so a larger allocation changes nothing they can
     * observe, and allocating (cudaFree synchronizes) costs more than the case: sizes round
     * up to powers of two and a buffer serves every case of its class. Elsewhere the size is
     * visible (a Vulkan descriptor's range, the emulator's exact bounds, compute-sanitizer's
     * allocation bounds), so only an exact size is reused. */
    pool->size_classes = !sanitized && (!strcmp(backend, "cuda") || !strcmp(backend, "hip"));
}

static size_t tb_class_bytes(size_t bytes)
{
    size_t c = GRD_BYTES;
    while (c < bytes)
        c *= 2;
    return c;
}

/* A device buffer of at least `bytes` (exactly, without size classes) for argument slot i. */
static int tb_pool_get(const struct hb_backend *be, hb_ctx *ctx, struct tb_pool *pool, int i, size_t bytes,
                       hb_buf **out)
{
    size_t want = pool->size_classes ? tb_class_bytes(bytes) : bytes;
    if (pool->buf[i] && pool->bytes[i] == want) {
        *out = pool->buf[i];
        return HB_OK;
    }
    if (pool->buf[i])
        be->release(ctx, pool->buf[i]);
    pool->buf[i] = NULL;
    int rc = be->alloc(ctx, want, &pool->buf[i]);
    if (rc != HB_OK) {
        pool->buf[i] = NULL;
        return rc;
    }
    pool->bytes[i] = want;
    *out = pool->buf[i];
    return HB_OK;
}

void tb_pool_release(const struct hb_backend *be, hb_ctx *ctx, struct tb_pool *pool)
{
    for (int i = 0; i < HB_MAX_BUF_ARGS; i++)
        if (pool->buf[i])
            be->release(ctx, pool->buf[i]);
    memset(pool->buf, 0, sizeof pool->buf);
}

/* The launch arguments in the op's order: buffers first, then integers (the default ABI). */
static void tb_bind(struct testbed *t)
{
    struct hb_args *a = &t->args;
    memset(a, 0, sizeof *a);
    a->n_bufs = t->lay.n_bufs;
    a->n_ints = t->lay.n_ints;
    for (int i = 0; i < t->lay.n_bufs; i++) {
        a->offsets[i] = GRD_BYTES;
        a->bytes[i] = t->lay.bytes[i];
        a->params[a->n_params++] = (struct hb_param){HB_PARAM_BUF, (unsigned char)i};
    }
    for (int i = 0; i < t->lay.n_ints; i++) {
        a->ints[i] = t->lay.ints[i];
        a->params[a->n_params++] = (struct hb_param){HB_PARAM_I32, (unsigned char)i};
    }
}

static int tb_initialize(struct testbed *t)
{
    t->op->layout(t->d, t->k, &t->lay);
    tb_bind(t);
    for (int i = 0; i < t->lay.n_bufs; i++) {
        struct tb_buffer *b = &t->b[i];
        b->data = t->lay.data[i], b->bytes = t->lay.bytes[i];
        size_t total = grd_image_bytes(b->bytes);
        b->image = xcalloc(total, 1);
        b->after = xcalloc(total, 1);
        grd_fill(b->image, b->bytes, b->data);
        if (i == t->lay.out && t->op->init_output)
            t->op->init_output(t->d, (float *)((char *)b->image + GRD_BYTES));
        tb_phase(t, PH_INIT);
        if (tb_pool_get(t->be, t->ctx, t->pool, i, total, &b->buf) != HB_OK)
            return t->failed_call = "alloc", -1;
        t->args.bufs[i] = b->buf;
        tb_phase(t, PH_ALLOC);
        if (t->be->upload(t->ctx, b->buf, 0, b->image, total) != HB_OK)
            return t->failed_call = "upload", -1;
        tb_phase(t, PH_UPLOAD);
    }
    return 0;
}

/* One launch from a fresh output (every launch after the first re-uploads it). */
static int tb_launch(struct testbed *t, int rep, struct rep_result *r)
{
    struct tb_buffer *out = &t->b[t->lay.out];
    if (rep && t->be->upload(t->ctx, out->buf, 0, out->image, grd_image_bytes(out->bytes)) != HB_OK)
        return t->failed_call = "upload", -1;
    tb_phase(t, PH_UPLOAD);
    double ms = 0;
    int rc = t->k ? t->be->launch(t->ctx, t->kern, t->grid, &t->args, &ms)
                  : t->be->vendor_sgemm(t->ctx, &t->args, &ms);
    if (rc != HB_OK)
        return t->failed_call = t->k ? "launch" : "vendor sgemm", -1;
    /* The fastest launch: the first carries lazy module loading and library set-up. */
    if (!rep || ms < r->kernel_ms)
        r->kernel_ms = ms;
    *t->device_ms += ms;
    tb_phase(t, PH_LAUNCH);
    for (int i = 0; i < t->lay.n_bufs; i++)
        if (t->be->download(t->ctx, t->b[i].buf, 0, t->b[i].after, grd_image_bytes(t->b[i].bytes)) != HB_OK)
            return t->failed_call = "download", -1;
    tb_phase(t, PH_DOWNLOAD);
    return 0;
}

/* Guards, inputs and padding after every launch; the comparison after the first, bitwise
 * equality with it after the others. */
static void tb_verify(struct testbed *t, int rep, struct rep_result *r)
{
    struct cmp_result *cmp = &r->cmp;
    for (int i = 0; i < t->lay.n_bufs; i++) {
        const struct tb_buffer *b = &t->b[i];
        long off;
        if (cmp->oob_buffer < 0 && grd_check(b->after, b->bytes, &off)) {
            cmp->classes |= CLS_OOB;
            cmp->oob_buffer = i;
            cmp->oob_offset = off;
        }
        if (b->data && memcmp((char *)b->after + GRD_BYTES, b->data, b->bytes))
            cmp->classes |= CLS_INPUT_MODIFIED;
    }
    const struct tb_buffer *out = &t->b[t->lay.out];
    const float *got = (const float *)((const char *)out->after + GRD_BYTES);
    if (t->op->check_padding)
        t->op->check_padding(t->d, got, t->lay.out, cmp);
    if (!rep) {
        r->output_hash = hb_fnv1a(got, out->bytes);
        t->first = xcalloc(out->bytes ? out->bytes : 1, 1);
        memcpy(t->first, got, out->bytes);
        tb_phase(t, PH_CHECK);
        t->op->compare(t->d, t->k, got, cmp);
        tb_phase(t, PH_COMPARE);
    } else if (memcmp(t->first, got, out->bytes)) {
        cmp->classes |= CLS_NONDET;
    }
    tb_phase(t, PH_CHECK);
}

/* Host images only: the device buffers stay in the pool for the next case. */
static void tb_release(struct testbed *t)
{
    free(t->first);
    for (int i = 0; i < t->lay.n_bufs; i++)
        free(t->b[i].image), free(t->b[i].after);
    tb_phase(t, PH_RELEASE);
}

int tb_run_case(const struct tb_env *env, const struct kern_desc *k, const struct case_data *d, struct rep_result *r,
                double phase_ms[], double *device_ms)
{
    struct testbed t;
    memset(&t, 0, sizeof t);
    const struct hb_backend *be = env->be;
    hb_ctx *ctx = env->ctx;
    t.be = be, t.ctx = ctx, t.kern = env->kern, t.k = k, t.d = d, t.op = op_get(d->c->op);
    t.pool = env->pool, t.phase_ms = phase_ms, t.mark = now_ms();
    t.device_ms = device_ms;
    t.grid[0] = t.grid[1] = t.grid[2] = 1;
    struct hb_err err = {{0}};
    if (k && kern_grid(k, d->c, t.grid, &err)) {
        r->cmp.classes |= CLS_API;
        snprintf(r->why, sizeof r->why, "%.250s", err.msg);
        return 0;
    }
    if (k)
        r->threads = (uint64_t)t.grid[0] * t.grid[1] * t.grid[2] * k->block[0] * k->block[1] * k->block[2];
    int failed = tb_initialize(&t);
    for (int rep = 0; rep < env->repeats && !failed; rep++) {
        failed = tb_launch(&t, rep, r);
        if (!failed)
            tb_verify(&t, rep, r);
    }
    if (failed) {
        r->cmp.classes |= CLS_API;
        snprintf(r->why, sizeof r->why, "%s: %s", t.failed_call, be->last_error(ctx));
    }
    tb_release(&t);
    return failed;
}
