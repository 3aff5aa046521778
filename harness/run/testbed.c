/* SPDX-License-Identifier: MIT */
/* testbed.c: one case in CUTLASS testbed's phases, on the worker's side. Initialize: every
 * buffer between guard bands (guard.h), inputs in, the outputs poisoned (the first padded), all
 * uploaded to pooled device buffers. Run: each launch from a fresh upload of the outputs and
 * scratch, so every launch must write all of them; odd repeats start pure outputs as the other
 * poison (types.h), so the parent tells an element never written from one the reference gives
 * the poison's value. Observe: guard bands after each launch,
 * inputs after the last, the backend's faults after the first; each launch's outputs, every
 * output buffer in order, go to the parent as they came back. It compares nothing with a
 * reference and holds none: the parent judges (verify.c). */
#include "testbed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "text.h"
#include "types.h"

struct tb_buffer {
    const void *data; /* initial contents; NULL: the poison */
    int role;         /* enum op_role */
    size_t bytes;
    void *image, *after; /* what is uploaded, what came back */
    hb_buf *buf;
};

struct testbed {
    struct bcall *bk;
    hb_kern *kern;
    const struct kern_desc *k;
    const struct case_data *d;
    const struct op_desc *op;
    struct op_layout lay;
    struct tb_buffer b[HB_MAX_BUF_ARGS];
    struct hb_args args;
    unsigned grid[3];
    int launched;            /* the kernel ran at all (an empty grid is not launched) */
    int first_out;           /* the first output: the one the op's padding is on */
    const char *failed_call; /* the backend call that failed, NULL while none has */
    struct tb_pool *pool;
    double *phase_ms, mark; /* the caller's sums by phase; when the current phase began */
    int repeats;            /* launches of the case */
    struct msg *res;        /* the case's RESULT: launches sent, the backend's words */
};

/* The time since the last mark goes to phase p. */
static void tb_phase(struct testbed *t, enum msg_phase p)
{
    double now = now_ms();
    t->phase_ms[p] += now - t->mark;
    t->mark = now;
}

void tb_pool_init(struct tb_pool *pool, unsigned caps, int sanitized)
{
    memset(pool, 0, sizeof *pool);
    /* Kernels that see raw pointers (CUDA, HIP: HB_CAP_RAW_POINTERS) cannot observe that an
     * allocation is larger than asked, and allocating (cudaFree synchronizes) costs more than
     * the case: sizes round up to powers of two and a buffer serves every case of its class.
     * Elsewhere the size is visible (a Vulkan descriptor's range, the emulator's exact bounds,
     * compute-sanitizer's allocation bounds), so only an exact size is reused. */
    pool->size_classes = !sanitized && (caps & HB_CAP_RAW_POINTERS);
}

static size_t tb_class_bytes(size_t bytes)
{
    size_t c = GRD_BYTES;
    while (c < bytes)
        c *= 2;
    return c;
}

/* A device buffer of at least `bytes` (exactly, without size classes) for argument slot i. */
static int tb_pool_get(struct bcall *bk, struct tb_pool *pool, int i, size_t bytes, hb_buf **out)
{
    size_t want = pool->size_classes ? tb_class_bytes(bytes) : bytes;
    if (pool->buf[i] && pool->bytes[i] == want) {
        *out = pool->buf[i];
        return HB_OK;
    }
    if (pool->buf[i])
        bcall_release(bk, pool->buf[i]);
    pool->buf[i] = NULL;
    int rc = bcall_alloc(bk, want, &pool->buf[i]);
    if (rc != HB_OK) {
        pool->buf[i] = NULL;
        return rc;
    }
    pool->bytes[i] = want;
    *out = pool->buf[i];
    return HB_OK;
}

static void tb_pool_host_free(struct bcall *bk, struct tb_pool *pool, int i, int which)
{
    if (pool->host[i][which])
        bcall_host_free(bk, pool->host[i][which], pool->locked[i][which]);
    pool->host[i][which] = NULL;
    pool->host_bytes[i][which] = 0;
}

/* Host memory of at least `bytes` for image `which` (0 uploaded, 1 downloaded) of slot i;
 * its contents are whatever the last case left (every byte is written before it is read).
 * It grows by powers of two: page-locking is slow, so it should happen seldom. */
static void *tb_pool_host(struct bcall *bk, struct tb_pool *pool, int i, int which, size_t bytes)
{
    if (pool->host_bytes[i][which] >= bytes)
        return pool->host[i][which];
    tb_pool_host_free(bk, pool, i, which);
    size_t size = tb_class_bytes(bytes);
    int locked;
    pool->host[i][which] = bcall_host_alloc(bk, size, &locked);
    pool->locked[i][which] = (unsigned char)locked;
    pool->host_bytes[i][which] = size;
    return pool->host[i][which];
}

void tb_pool_release(struct bcall *bk, struct tb_pool *pool)
{
    for (int i = 0; i < HB_MAX_BUF_ARGS; i++) {
        if (pool->buf[i])
            bcall_release(bk, pool->buf[i]);
        tb_pool_host_free(bk, pool, i, 0);
        tb_pool_host_free(bk, pool, i, 1);
    }
    memset(pool->buf, 0, sizeof pool->buf);
}

/* The launch arguments (kern_bind), each buffer after its guard band. */
static void tb_bind(struct testbed *t)
{
    kern_bind(t->k, t->d->c->op, &t->lay, &t->args);
    for (int i = 0; i < t->lay.n_bufs; i++)
        t->args.offsets[i] = grd_band();
}

/* The transfers of one step, made in one go where the backend takes several at once. */
struct tb_batch {
    struct hb_transfer t[2 * HB_MAX_BUF_ARGS];
    int n;
};

static void tb_add(struct tb_batch *batch, hb_buf *buf, size_t offset, void *host, size_t bytes)
{
    batch->t[batch->n++] = (struct hb_transfer){buf, offset, host, bytes};
}

static int tb_send(struct testbed *t, const struct tb_batch *batch, int upload)
{
    return upload ? bcall_upload_many(t->bk, batch->t, batch->n) : bcall_download_many(t->bk, batch->t, batch->n);
}

static int tb_initialize(struct testbed *t)
{
    t->op->layout(t->d, t->k, &t->lay);
    tb_bind(t);
    struct tb_batch batch = {.n = 0};
    t->first_out = -1;
    for (int i = 0; i < t->lay.n_bufs; i++) {
        struct tb_buffer *b = &t->b[i];
        b->data = t->lay.data[i], b->role = t->lay.role[i], b->bytes = t->lay.bytes[i];
        if (b->role == OP_ROLE_OUT && t->first_out < 0)
            t->first_out = i;
        size_t total = grd_image_bytes(b->bytes);
        b->image = tb_pool_host(t->bk, t->pool, i, 0, total);
        b->after = tb_pool_host(t->bk, t->pool, i, 1, total);
        grd_fill(b->image, b->bytes, b->data, i);
        if (i == t->first_out && t->op->init_output)
            t->op->init_output(t->d, t->k, (float *)((char *)b->image + grd_band()));
        tb_phase(t, PH_INIT);
        if (tb_pool_get(t->bk, t->pool, i, total, &b->buf) != HB_OK)
            return t->failed_call = "alloc", -1;
        t->args.bufs[i] = b->buf;
        tb_phase(t, PH_ALLOC);
        tb_add(&batch, b->buf, 0, b->image, total);
    }
    if (tb_send(t, &batch, 1) != HB_OK)
        return t->failed_call = "upload", -1;
    tb_phase(t, PH_UPLOAD);
    return 0;
}

/* A buffer's image back from the device: whole, or only its guard bands and padding (an
 * input between launches: its contents are compared once, after the last launch, while an
 * access past it is pinned to the first launch that made it). */
static void tb_download(struct tb_batch *batch, struct tb_buffer *b, int whole)
{
    size_t total = grd_image_bytes(b->bytes), tail = grd_band() + b->bytes;
    if (whole) {
        tb_add(batch, b->buf, 0, b->after, total);
        return;
    }
    if (grd_band())
        tb_add(batch, b->buf, 0, b->after, grd_band());
    if (total > tail)
        tb_add(batch, b->buf, tail, (char *)b->after + tail, total - tail);
}

/* Each pure output's start for launch `rep`: its type's poison, the other one on odd repeats. */
static void tb_pure_start(struct testbed *t, int rep)
{
    for (int i = 0; i < t->lay.n_bufs; i++) {
        if (!t->lay.pure_out[i])
            continue;
        enum hb_type type = (enum hb_type)t->lay.type[i];
        const struct ty_info *ty = ty_get(type);
        ty_fill_bits(type, (char *)t->b[i].image + grd_band(), rep % 2 ? ty->poison2 : ty->poison,
                     t->b[i].bytes / ty->size);
    }
}

/* One launch from fresh outputs and scratch (every launch after the first re-uploads them); its
 * device time in the launch's record. */
static int tb_launch(struct testbed *t, int rep, struct msg *lm)
{
    struct tb_batch again = {.n = 0};
    if (rep)
        tb_pure_start(t, rep);
    for (int i = 0; rep && i < t->lay.n_bufs; i++)
        if (t->b[i].role != OP_ROLE_IN)
            tb_add(&again, t->b[i].buf, 0, t->b[i].image, grd_image_bytes(t->b[i].bytes));
    if (tb_send(t, &again, 1) != HB_OK)
        return t->failed_call = "upload", -1;
    tb_phase(t, PH_UPLOAD);
    double ms = 0;
    /* An empty grid is not launched (a real launch of one is an error on CUDA and HIP): the
     * verify phase then checks that nothing was touched. */
    int empty = t->k && (!t->grid[0] || !t->grid[1] || !t->grid[2]);
    t->args.repeat = rep;
    int rc = empty  ? HB_OK
             : t->k ? bcall_launch(t->bk, t->kern, t->grid, &t->args, &ms)
                    : bcall_vendor_sgemm(t->bk, &t->args, &ms);
    t->launched = !empty;
    if (rc != HB_OK)
        return t->failed_call = t->k ? "launch" : "vendor sgemm", -1;
    lm->kernel_ms = ms;
    tb_phase(t, PH_LAUNCH);
    struct tb_batch batch = {.n = 0};
    for (int i = 0; i < t->lay.n_bufs; i++)
        tb_download(&batch, &t->b[i], t->b[i].role != OP_ROLE_IN || rep == t->repeats - 1);
    if (tb_send(t, &batch, 0) != HB_OK)
        return t->failed_call = "download", -1;
    tb_phase(t, PH_DOWNLOAD);
    return 0;
}

/* What a backend that sees every access (the emulator) reports: reads outside an argument's
 * data are oob-read, writes oob; the first of each is named in the case's words. */
static void tb_faults(struct testbed *t, struct msg *lm)
{
    struct hb_fault f[2];
    /* A backend reports its last launch: after an empty grid that is the previous case's. */
    if (!t->k || !t->launched || !bcall_faults(t->bk, &f[0], &f[1]))
        return;
    for (int w = 0; w < 2; w++) {
        if (!f[w].count)
            continue;
        lm->seen |= w ? CLS_OOB : CLS_OOB_READ;
        if (w && f[w].arg >= 0 && f[w].arg < t->lay.n_bufs)
            lm->fault_arg = f[w].arg, lm->fault_offset = (long)f[w].offset;
        char *why = t->res->why;
        size_t used = strlen(why);
        char where[64] = "no argument";
        if (f[w].arg >= 0)
            snprintf(where, sizeof where, "argument %d byte %lld", f[w].arg, f[w].offset);
        snprintf(why + used, sizeof t->res->why - used,
                 "%s%lld %s out of bounds, first at %s by thread (%u,%u,%u) "
                 "block (%u,%u,%u)",
                 used ? "; " : "", f[w].count, w ? "writes" : "reads", where, f[w].thread[0], f[w].thread[1],
                 f[w].thread[2], f[w].block[0], f[w].block[1], f[w].block[2]);
    }
}

/* Guard bands after every launch (the first buffer with damage), inputs after the last. */
static void tb_observe(struct testbed *t, int rep, struct msg *lm)
{
    for (int i = 0; i < t->lay.n_bufs; i++) {
        const struct tb_buffer *b = &t->b[i];
        long off;
        if (lm->guard_arg < 0 && grd_check(b->after, b->bytes, i, &off)) {
            lm->seen |= CLS_OOB;
            lm->guard_arg = i;
            lm->guard_offset = off;
        }
        if (b->role == OP_ROLE_IN && rep == t->repeats - 1 && memcmp((char *)b->after + grd_band(), b->data, b->bytes))
            lm->seen |= CLS_INPUT_MODIFIED;
    }
    tb_phase(t, PH_CHECK);
}

/* One launch, observed, and its record and output handed on. */
static int tb_launch_and_send(struct testbed *t, const struct tb_env *env, int rep)
{
    struct msg lm;
    memset(&lm, 0, sizeof lm);
    lm.type = MSG_LAUNCH, lm.launch = rep;
    lm.guard_arg = lm.fault_arg = -1;
    if (tb_launch(t, rep, &lm))
        return -1;
    /* The first launch's exact accesses: later ones repeat them (or a race shows as a repeat
     * difference anyway). */
    if (!rep)
        tb_faults(t, &lm);
    tb_observe(t, rep, &lm);
    const void *outs[HB_MAX_BUF_ARGS];
    size_t bytes[HB_MAX_BUF_ARGS];
    int n = 0;
    for (int i = 0; i < t->lay.n_bufs; i++)
        if (t->b[i].role == OP_ROLE_OUT)
            outs[n] = (const char *)t->b[i].after + grd_band(), bytes[n++] = t->b[i].bytes;
    env->sent(env->arg, &lm, outs, bytes, n);
    t->res->launch++;
    tb_phase(t, PH_SEND);
    return 0;
}

int tb_run_case(const struct tb_env *env, const struct kern_desc *k, const struct case_data *d, struct msg *res,
                double phase_ms[])
{
    struct testbed t;
    memset(&t, 0, sizeof t);
    t.bk = env->bk, t.kern = env->kern, t.k = k, t.d = d, t.op = op_get(d->c->op);
    t.pool = env->pool, t.phase_ms = phase_ms, t.mark = now_ms();
    t.repeats = env->repeats, t.res = res;
    t.grid[0] = t.grid[1] = t.grid[2] = 1;
    struct hb_err err = {{0}};
    if (k && kern_grid(k, d->c, t.grid, &err)) {
        res->seen |= CLS_API;
        txt_copy(res->why, sizeof res->why, err.msg);
        return 0;
    }
    uint64_t threads = k ? (uint64_t)t.grid[0] * t.grid[1] * t.grid[2] * k->block[0] * k->block[1] * k->block[2] : 1;
    if (!threads)
        snprintf(res->why, sizeof res->why, "empty grid %ux%ux%u: not launched", t.grid[0], t.grid[1], t.grid[2]);
    int failed = tb_initialize(&t);
    for (int rep = 0; rep < env->repeats && !failed; rep++)
        failed = tb_launch_and_send(&t, env, rep);
    if (failed) {
        res->seen |= CLS_API;
        txt_printf(res->why, sizeof res->why, "%s: %s", t.failed_call, bcall_error(env->bk));
    }
    /* Images and device buffers stay in the pool for the next case. */
    tb_phase(&t, PH_RELEASE);
    return failed;
}
