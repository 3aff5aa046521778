/* testbed.c: one case in CUTLASS testbed's phases. Initialize: every buffer between guard bands
 * (guard.h), inputs in, the output poisoned and padded, all uploaded to pooled device buffers.
 * Run: each launch from a fresh upload of the output, so every launch must write all of it.
 * Verify: guards and padding intact after each launch, inputs after the last, the op's comparison on the first launch,
 * bitwise equality on later ones (a repeat of a kernel that declares deterministic = no that differs is compared on its
 * own too). Fills the row's figures and the phases' times; decides no verdict. */
#include "testbed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "guard.h"
#include "protocol.h"
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
    int launched;                 /* the kernel ran at all (an empty grid is not launched) */
    void *first[HB_MAX_BUF_ARGS]; /* each output as the first launch left it, for the repeat check */
    int first_out;                /* the first output: the one the op's padding is on */
    const char *failed_call;      /* the backend call that failed, NULL while none has */
    struct tb_pool *pool;
    double *phase_ms, mark; /* the caller's sums by phase; when the current phase began */
    double *device_ms;      /* the caller's sum of every launch's device time */
    int repeats;            /* launches of the case */
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

static void tb_pool_host_free(const struct hb_backend *be, hb_ctx *ctx, struct tb_pool *pool, int i, int which)
{
    if (pool->locked[i][which])
        be->host_free(ctx, pool->host[i][which]);
    else
        free(pool->host[i][which]);
    pool->host[i][which] = NULL;
    pool->host_bytes[i][which] = 0;
}

/* Host memory of at least `bytes` for image `which` (0 uploaded, 1 downloaded) of slot i;
 * its contents are whatever the last case left (every byte is written before it is read).
 * It grows by powers of two: page-locking is slow, so it should happen seldom. */
static void *tb_pool_host(const struct hb_backend *be, hb_ctx *ctx, struct tb_pool *pool, int i, int which,
                          size_t bytes)
{
    if (pool->host_bytes[i][which] >= bytes)
        return pool->host[i][which];
    tb_pool_host_free(be, ctx, pool, i, which);
    size_t size = tb_class_bytes(bytes);
    void *p = be->host_alloc ? be->host_alloc(ctx, size) : NULL;
    pool->locked[i][which] = p != NULL;
    pool->host[i][which] = p ? p : xcalloc(size, 1);
    pool->host_bytes[i][which] = size;
    return pool->host[i][which];
}

void tb_pool_release(const struct hb_backend *be, hb_ctx *ctx, struct tb_pool *pool)
{
    for (int i = 0; i < HB_MAX_BUF_ARGS; i++) {
        if (pool->buf[i])
            be->release(ctx, pool->buf[i]);
        tb_pool_host_free(be, ctx, pool, i, 0);
        tb_pool_host_free(be, ctx, pool, i, 1);
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
    int (*many)(hb_ctx *, const struct hb_transfer *, int) = upload ? t->be->upload_many : t->be->download_many;
    if (many && batch->n > 1)
        return many(t->ctx, batch->t, batch->n);
    for (int i = 0; i < batch->n; i++) {
        const struct hb_transfer *x = &batch->t[i];
        if ((upload ? t->be->upload(t->ctx, x->buf, x->offset, x->host, x->bytes)
                    : t->be->download(t->ctx, x->buf, x->offset, x->host, x->bytes)) != HB_OK)
            return HB_ERROR;
    }
    return HB_OK;
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
        b->image = tb_pool_host(t->be, t->ctx, t->pool, i, 0, total);
        b->after = tb_pool_host(t->be, t->ctx, t->pool, i, 1, total);
        grd_fill(b->image, b->bytes, b->data);
        if (i == t->first_out && t->op->init_output)
            t->op->init_output(t->d, t->k, (float *)((char *)b->image + grd_band()));
        tb_phase(t, PH_INIT);
        if (tb_pool_get(t->be, t->ctx, t->pool, i, total, &b->buf) != HB_OK)
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

/* One launch from fresh outputs and scratch (every launch after the first re-uploads them). */
static int tb_launch(struct testbed *t, int rep, struct rep_result *r)
{
    struct tb_batch again = {.n = 0};
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
             : t->k ? t->be->launch(t->ctx, t->kern, t->grid, &t->args, &ms)
                    : t->be->vendor_sgemm(t->ctx, &t->args, &ms);
    t->launched = !empty;
    if (rc != HB_OK)
        return t->failed_call = t->k ? "launch" : "vendor sgemm", -1;
    /* The fastest launch: the first carries lazy module loading and library set-up. */
    if (!rep || ms < r->kernel_ms)
        r->kernel_ms = ms;
    *t->device_ms += ms;
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
 * data are oob-read, writes oob; the first of each is named in the row. */
static void tb_faults(struct testbed *t, struct rep_result *r)
{
    struct hb_fault f[2];
    memset(f, 0, sizeof f);
    /* A backend reports its last launch: after an empty grid that is the previous case's. */
    if (!t->k || !t->launched || !t->be->faults || t->be->faults(t->ctx, &f[0], &f[1]) != HB_OK)
        return;
    for (int w = 0; w < 2; w++) {
        if (!f[w].count)
            continue;
        r->cmp.classes |= w ? CLS_OOB : CLS_OOB_READ;
        if (w && r->cmp.oob_buffer < 0 && f[w].arg >= 0)
            r->cmp.oob_buffer = f[w].arg, r->cmp.oob_offset = (long)f[w].offset;
        size_t used = strlen(r->why);
        char where[64] = "no argument";
        if (f[w].arg >= 0)
            snprintf(where, sizeof where, "argument %d byte %lld", f[w].arg, f[w].offset);
        snprintf(r->why + used, sizeof r->why - used,
                 "%s%lld %s out of bounds, first at %s by thread (%u,%u,%u) "
                 "block (%u,%u,%u)",
                 used ? "; " : "", f[w].count, w ? "writes" : "reads", where, f[w].thread[0], f[w].thread[1],
                 f[w].thread[2], f[w].block[0], f[w].block[1], f[w].block[2]);
    }
}

/* Each buffer's data as the last launch left it. */
static void tb_got(const struct testbed *t, const void *got[HB_MAX_BUF_ARGS])
{
    for (int i = 0; i < t->lay.n_bufs; i++)
        got[i] = (const char *)t->b[i].after + grd_band();
}

/* A repeat of a kernel that declared deterministic = no differs from the first launch: it is
 * judged against the reference on its own (its classes join the row's, its ratio if worse),
 * and the ULP spread between the two is kept. verdict.c then decides what the difference means. */
static void tb_repeat_within(struct testbed *t, const void *const got[], struct cmp_result *cmp)
{
    for (int b = 0; b < t->lay.n_bufs; b++) {
        enum hb_type ty = (enum hb_type)t->lay.type[b];
        size_t size = ty_get(ty)->size, n = t->b[b].role == OP_ROLE_OUT ? t->b[b].bytes / size : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t ulp = ty_ulp(ty, (const char *)got[b] + i * size, (const char *)t->first[b] + i * size);
            if (ulp > cmp->repeat_ulp)
                cmp->repeat_ulp = ulp;
        }
    }
    struct cmp_result *again = xcalloc(1, sizeof *again);
    cmp_init(again);
    t->op->compare(t->d, t->k, got, again);
    cmp->classes |= again->classes;
    cmp->suspect |= again->suspect;
    if (again->max_ratio * cmp->threshold > cmp->max_ratio * again->threshold)
        cmp->max_ratio = again->max_ratio, cmp->threshold = again->threshold;
    free(again);
}

/* A repeat of a kernel that did not declare deterministic = no differs from the first launch:
 * whether this launch, like the first and every repeat that differed before it, is within the
 * bound by itself. Only that row's message changes (verdict.c names the key); its classes and
 * figures stay the first launch's. */
static void tb_repeat_bound(struct testbed *t, const void *const got[], int first_difference, struct cmp_result *cmp)
{
    if (!first_difference && !cmp->repeats_within)
        return;
    int within = !(cmp->classes & (CLS_WRONG | CLS_NAN | CLS_UNWRITTEN)) && !cmp->suspect;
    if (within) {
        struct cmp_result *again = xcalloc(1, sizeof *again);
        cmp_init(again);
        t->op->compare(t->d, t->k, got, again);
        within = !again->classes && !again->suspect;
        free(again);
    }
    cmp->repeats_within = within;
}

/* The first launch: every output hashed (one hash over them all, in buffer order) and kept. */
static void tb_keep_first(struct testbed *t, const void *const got[], struct rep_result *r)
{
    uint64_t h = hb_fnv1a(NULL, 0);
    for (int i = 0; i < t->lay.n_bufs; i++) {
        const struct tb_buffer *b = &t->b[i];
        if (b->role != OP_ROLE_OUT)
            continue;
        h = hb_fnv1a_from(h, got[i], b->bytes);
        t->first[i] = xcalloc(b->bytes ? b->bytes : 1, 1);
        memcpy(t->first[i], got[i], b->bytes);
    }
    r->output_hash = h;
}

/* Guards and padding after every launch, inputs after the last; the comparison after the
 * first, bitwise equality with it after the others. */
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
        if (b->role == OP_ROLE_IN && rep == t->repeats - 1 && memcmp((char *)b->after + grd_band(), b->data, b->bytes))
            cmp->classes |= CLS_INPUT_MODIFIED;
    }
    const void *got[HB_MAX_BUF_ARGS];
    tb_got(t, got);
    if (t->op->check_padding && t->first_out >= 0)
        t->op->check_padding(t->d, t->k, got[t->first_out], t->first_out, cmp);
    if (!rep) {
        tb_keep_first(t, got, r);
        tb_phase(t, PH_CHECK);
        t->op->compare(t->d, t->k, got, cmp);
        tb_phase(t, PH_COMPARE);
        tb_phase(t, PH_CHECK);
        return;
    }
    int differs = 0;
    for (int i = 0; i < t->lay.n_bufs; i++)
        differs |= t->b[i].role == OP_ROLE_OUT && memcmp(t->first[i], got[i], t->b[i].bytes);
    if (differs) {
        int first_difference = !(cmp->classes & CLS_NONDET);
        cmp->classes |= CLS_NONDET;
        if (t->k && t->k->nondeterministic)
            tb_repeat_within(t, got, cmp);
        else
            tb_repeat_bound(t, got, first_difference, cmp);
    }
    tb_phase(t, PH_CHECK);
}

/* The first launch's output only: images and device buffers stay in the pool for the next case. */
static void tb_release(struct testbed *t)
{
    for (int i = 0; i < HB_MAX_BUF_ARGS; i++)
        free(t->first[i]);
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
    t.device_ms = device_ms, t.repeats = env->repeats;
    t.grid[0] = t.grid[1] = t.grid[2] = 1;
    struct hb_err err = {{0}};
    if (k && kern_grid(k, d->c, t.grid, &err)) {
        r->cmp.classes |= CLS_API;
        txt_copy(r->why, sizeof r->why, err.msg);
        return 0;
    }
    if (k)
        r->threads = (uint64_t)t.grid[0] * t.grid[1] * t.grid[2] * k->block[0] * k->block[1] * k->block[2];
    if (k && !r->threads)
        snprintf(r->why, sizeof r->why, "empty grid %ux%ux%u: not launched", t.grid[0], t.grid[1], t.grid[2]);
    if (t.op->note)
        t.op->note(d, k, r);
    int failed = tb_initialize(&t);
    for (int rep = 0; rep < env->repeats && !failed; rep++) {
        failed = tb_launch(&t, rep, r);
        /* The first launch's exact accesses: later ones repeat them (or a race shows as a
         * repeat difference anyway). */
        if (!failed && !rep)
            tb_faults(&t, r);
        if (!failed)
            tb_verify(&t, rep, r);
    }
    if (failed) {
        r->cmp.classes |= CLS_API;
        txt_printf(r->why, sizeof r->why, "%s: %s", t.failed_call, be->last_error(ctx));
    }
    tb_release(&t);
    return failed;
}
