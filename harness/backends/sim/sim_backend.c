/* SPDX-License-Identifier: MIT */
/* sim_backend.c: the "sim" backend's runtime: CUDA and HIP sources (sim_load.c) run on the
 * CPU at warp width 4 to 64, blocks spread over one worker per core (HB_SIM_THREADS), under
 * HB_SIM_SCHEDULE = mixed:SEED (default, seed 0), lockstep or random:SEED, every access of
 * kernel code checked against the launch's buffers (faults()). Buffers are host memory. No
 * timing model, no device API beyond sim_prelude.h. HB_SIM_DEVICES=N (1 to 8, default 1)
 * offers N identical devices, so what the core does per device (--devices all, --device K)
 * is tested without N GPUs. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hbc.h"
#include "sim_internal.h"

/* Fill byte of shared memory: 0x4b4b4b4b is 1.33e7 as a float, 1.26e9 as an int. Finite
 * on purpose: NaN would turn every race into the same NaN, hiding that it varies. */
#define SIM_SHARED_POISON 0x4b
/* Mapped, unused memory on each side of every buffer: an out-of-bounds access that lands
 * there is recorded and does no harm, where one into the heap could corrupt the emulator. */
#define SIM_SLACK_BYTES (1u << 20)

static const int sim_widths[] = {4, 8, 16, 32, 64};

void sim_err(struct hb_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
}

static double sim_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int sim_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > SIM_MAX_THREADS ? SIM_MAX_THREADS : (int)n;
}

#define SIM_MAX_DEVICES 8 /* harness/cmd/run_options.c checks HB_SIM_DEVICES against it first */

/* HB_SIM_DEVICES, or 1; -1 with err when it is not a count from 1 to SIM_MAX_DEVICES. */
static int sim_device_count(char *err, size_t errlen)
{
    const char *v = getenv("HB_SIM_DEVICES");
    if (!v || !*v)
        return 1;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > SIM_MAX_DEVICES) {
        snprintf(err, errlen, "HB_SIM_DEVICES=%s: expected a number of devices from 1 to %d", v, SIM_MAX_DEVICES);
        return -1;
    }
    return (int)n;
}

static void sim_device_info(struct hb_device_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "SIMT emulator (%d cores)", sim_cores());
    snprintf(out->driver, sizeof out->driver, "hb_sim ABI %d, runtime built by gcc %s", SIM_ABI_VERSION, __VERSION__);
    out->n_widths = (int)(sizeof sim_widths / sizeof sim_widths[0]);
    for (int i = 0; i < out->n_widths; i++)
        out->widths[i].width = sim_widths[i]; /* env stays "": the width is an open() argument */
    out->global_mem_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    out->shared_mem_per_block = SIM_SHARED_BYTES;
}

static int sim_list_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    int n = sim_device_count(err, errlen);
    for (int i = 0; i < n && i < max; i++)
        sim_device_info(&out[i]);
    return n;
}

/* Takes blocks until none are left; the first failing block stops the launch. */
static void sim_drain(struct hb_ctx *c, struct sim_worker *w)
{
    char err[512];
    void *shared = NULL;
    const struct hb_kern *k = c->job_kern;
    if (k->shared_bytes) {
        k->tls_touch();
        if (dlinfo(k->dl, RTLD_DI_TLS_DATA, &shared) != 0)
            shared = NULL;
    }
    sim_worker_set_shared(w, (uintptr_t)shared, shared ? (uintptr_t)shared + k->shared_bytes : 0);
    sim_worker_reset_faults(w);
    for (;;) {
        uint64_t b = atomic_fetch_add(&c->next_block, 1);
        /* Blocks below a failed one still run: the lowest failure is then the same
         * whatever the number of workers. */
        if (b >= c->n_blocks || b > atomic_load(&c->failed_block))
            return;
        /* Shared memory starts as the same junk in every block and launch, never as
         * leftovers from whichever block ran here before: a read before any write gives a
         * wrong result, and a race gives one that varies with the schedule. */
        if (shared)
            memset(shared, SIM_SHARED_POISON, k->shared_bytes);
        if (sim_run_block(w, c->job, b, err, sizeof err) != 0) {
            pthread_mutex_lock(&c->mu);
            if (b < atomic_load(&c->failed_block)) {
                atomic_store(&c->failed_block, b);
                snprintf(c->job_err, sizeof c->job_err, "%s", err);
            }
            pthread_mutex_unlock(&c->mu);
            return;
        }
    }
}

static void *sim_thread_main(void *arg)
{
    struct sim_helper *h = arg;
    struct hb_ctx *c = h->c;
    uint64_t seen = 0;
    sim_overflow_arm();
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->gen == seen && !c->stop)
            pthread_cond_wait(&c->start, &c->mu);
        if (c->stop) {
            pthread_mutex_unlock(&c->mu);
            sim_overflow_disarm();
            return NULL;
        }
        seen = c->gen;
        pthread_mutex_unlock(&c->mu);
        sim_drain(c, c->workers[h->idx]);
        pthread_mutex_lock(&c->mu);
        if (--c->running == 0)
            pthread_cond_signal(&c->done);
        pthread_mutex_unlock(&c->mu);
    }
}

static void sim_close(hb_ctx *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_broadcast(&c->start);
    pthread_mutex_unlock(&c->mu);
    for (int i = 0; i < c->n_threads; i++)
        pthread_join(c->threads[i], NULL);
    for (int i = 0; i < c->n_workers; i++)
        sim_worker_free(c->workers[i]);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->start);
    pthread_cond_destroy(&c->done);
    sim_overflow_disarm();
    free(c);
}

/* HB_SIM_SCHEDULE=MODE:SEED, the seed a number (strtoull base 0). */
static int sim_read_schedule(struct hb_ctx *c, const char *s)
{
    static const struct {
        const char *name;
        enum sim_mode mode;
    } modes[] = {{"mixed:", SIM_MIXED}, {"random:", SIM_RANDOM}};
    c->mode = SIM_MIXED;
    c->seed = 0;
    if (!s || !*s)
        return 0;
    if (strcmp(s, "lockstep") == 0) {
        c->mode = SIM_LOCKSTEP;
        return 0;
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        size_t n = strlen(modes[i].name);
        char *end;
        if (strncmp(s, modes[i].name, n) != 0 || !s[n] || s[n] == '-')
            continue;
        errno = 0;
        c->seed = strtoull(s + n, &end, 0);
        if (!*end && errno == 0) {
            c->mode = modes[i].mode;
            return 0;
        }
    }
    sim_err(c, "HB_SIM_SCHEDULE=%s: expected mixed:SEED, lockstep or random:SEED", s);
    return -1;
}

/* HB_SIM_THREADS=N (1..256) and HB_SIM_SCHEDULE. */
static int sim_read_env(struct hb_ctx *c)
{
    const char *t = getenv("HB_SIM_THREADS");
    c->n_workers = sim_cores();
    if (t && *t) {
        char *end;
        long n = strtol(t, &end, 10);
        if (*end || n < 1 || n > SIM_MAX_THREADS) {
            sim_err(c, "HB_SIM_THREADS=%s: expected a number of workers from 1 to %d", t, SIM_MAX_THREADS);
            return -1;
        }
        c->n_workers = (int)n;
    }
    return sim_read_schedule(c, getenv("HB_SIM_SCHEDULE"));
}

static int sim_open(hb_ctx **out, int device, int width, char *err, size_t errlen)
{
    *out = NULL;
    int devices = sim_device_count(err, errlen);
    if (devices < 0)
        return HB_ERROR;
    if (device < 0 || device >= devices) {
        snprintf(err, errlen, "sim: no device %d (the emulator has %d: HB_SIM_DEVICES)", device, devices);
        return HB_ERROR;
    }
    int ok = 0;
    for (size_t i = 0; i < sizeof sim_widths / sizeof sim_widths[0]; i++)
        ok |= sim_widths[i] == width;
    if (!ok) {
        snprintf(err, errlen, "sim: width %d not offered (4, 8, 16, 32, 64)", width);
        return HB_UNSUPPORTED;
    }
    struct hb_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "sim: calloc(context) failed");
        return HB_ERROR;
    }
    c->width = width;
    /* This thread runs worker 0's lanes (sim_run_job); sim_close, here too, disarms it. */
    sim_overflow_arm();
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->start, NULL);
    pthread_cond_init(&c->done, NULL);
    int n_want = 0;
    if (sim_read_env(c) == 0) {
        n_want = c->n_workers;
        c->n_workers = 0;
        for (; c->n_workers < n_want; c->n_workers++)
            if (!(c->workers[c->n_workers] = sim_worker_new(c->err, sizeof c->err)))
                break;
        for (int i = 1; c->n_workers == n_want && i < n_want; i++) {
            c->helpers[i] = (struct sim_helper){c, i};
            int rc = pthread_create(&c->threads[c->n_threads], NULL, sim_thread_main, &c->helpers[i]);
            if (rc != 0) {
                sim_err(c, "pthread_create(worker %d): %s", i, strerror(rc));
                n_want = -1;
                break;
            }
            c->n_threads++;
        }
    }
    if (n_want <= 0 || c->n_workers != n_want) {
        snprintf(err, errlen, "sim: %s", c->err);
        sim_close(c);
        return HB_ERROR;
    }
    *out = c;
    return HB_OK;
}

static const char *sim_last_error(hb_ctx *c) { return c ? c->err : "sim: no context"; }

static int sim_alloc(hb_ctx *c, size_t bytes, hb_buf **out)
{
    struct hb_buf *b = calloc(1, sizeof *b);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = (bytes + page - 1) / page * page;
    if (b) {
        b->map_bytes = data + 2 * (size_t)SIM_SLACK_BYTES;
        b->map = mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    if (!b || b->map == MAP_FAILED) {
        sim_err(c, "mmap(%zu bytes) failed: %s", bytes, strerror(errno));
        free(b);
        return HB_ERROR;
    }
    /* Page aligned like device allocations; contents are left undefined, as there. */
    b->data = b->map + SIM_SLACK_BYTES;
    b->size = bytes;
    *out = b;
    return HB_OK;
}

static void sim_release(hb_ctx *c, hb_buf *b)
{
    (void)c;
    if (b)
        munmap(b->map, b->map_bytes);
    free(b);
}

static int sim_range_ok(hb_ctx *c, const char *what, const hb_buf *b, size_t off, size_t bytes)
{
    return hbc_range_ok(b->size, off, bytes, what, c->err, sizeof c->err);
}

static int sim_upload(hb_ctx *c, hb_buf *dst, size_t off, const void *src, size_t bytes)
{
    if (!sim_range_ok(c, "upload", dst, off, bytes))
        return HB_ERROR;
    memcpy(dst->data + off, src, bytes);
    return HB_OK;
}

static int sim_download(hb_ctx *c, hb_buf *src, size_t off, void *dst, size_t bytes)
{
    if (!sim_range_ok(c, "download", src, off, bytes))
        return HB_ERROR;
    memcpy(dst, src->data + off, bytes);
    return HB_OK;
}

static int sim_copy(hb_ctx *c, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes,
                    double *device_ms)
{
    if (!sim_range_ok(c, "copy (destination)", dst, dst_off, bytes) ||
        !sim_range_ok(c, "copy (source)", src, src_off, bytes))
        return HB_ERROR;
    double t0 = sim_now_ms();
    memmove(dst->data + dst_off, src->data + src_off, bytes);
    if (device_ms)
        *device_ms = sim_now_ms() - t0;
    return HB_OK;
}

/* Runs the job on every worker, this thread included, until the blocks run out. */
static void sim_run_job(struct hb_ctx *c, const struct sim_launch *L, const hb_kern *k, uint64_t blocks)
{
    c->job = L;
    c->job_kern = k;
    c->n_blocks = blocks;
    atomic_store(&c->next_block, 0);
    atomic_store(&c->failed_block, UINT64_MAX);
    k->set_live(1);
    pthread_mutex_lock(&c->mu);
    c->running = c->n_threads;
    c->gen++;
    pthread_cond_broadcast(&c->start);
    pthread_mutex_unlock(&c->mu);
    sim_drain(c, c->workers[0]);
    pthread_mutex_lock(&c->mu);
    while (c->running > 0)
        pthread_cond_wait(&c->done, &c->mu);
    pthread_mutex_unlock(&c->mu);
    k->set_live(0);
    c->job = NULL;
    c->job_kern = NULL;
}

/* Which copy of k runs this launch. A case's first launch is checked: every access, and
 * what it finds is reported. Its repeats exist to see whether the result depends on the
 * schedule; they run the unchecked copy (the same source and sync points: it has no volatile
 * access) unless the first launch found anything, or either copy's globals have changed. */
static hb_kern *sim_image(const struct hb_ctx *c, hb_kern *k, const struct hb_args *a)
{
    return a->repeat > 0 && k->unchecked && !k->unchecked_off && !c->first_found ? k->unchecked : k;
}

/* Whether k's writable segment differs from its copy at load (no copy: assumed so). */
static int sim_writable_changed(const hb_kern *k)
{
    if (k->writable.lo >= k->writable.hi)
        return 0;
    return !k->writable_at_load ||
           memcmp((const void *)k->writable.lo, k->writable_at_load, k->writable.hi - k->writable.lo) != 0;
}

static int sim_launch(hb_ctx *c, hb_kern *k, const unsigned grid[3], const struct hb_args *a, double *device_ms)
{
    struct sim_launch L;
    memset(&L, 0, sizeof L);
    memset(c->faults, 0, sizeof c->faults);
    c->faults[0].arg = c->faults[1].arg = -1;
    hb_kern *run = sim_image(c, k, a);
    int rc = sim_launch_prepare(c, run, grid, a, &L);
    if (rc != HB_OK)
        return rc;
    double t0 = sim_now_ms();
    sim_run_job(c, &L, run, (uint64_t)grid[0] * grid[1] * grid[2]);
    if (device_ms)
        *device_ms = sim_now_ms() - t0;
    sim_launch_faults(c);
    int failed = atomic_load(&c->failed_block) != UINT64_MAX;
    if (a->repeat <= 0)
        c->first_found = failed || c->faults[0].count || c->faults[1].count;
    k->unchecked_off |= sim_writable_changed(run);
    if (failed) {
        sim_err(c, "launch: %s", c->job_err);
        return HB_ERROR;
    }
    return HB_OK;
}

static int sim_faults(hb_ctx *c, struct hb_fault *reads, struct hb_fault *writes)
{
    *reads = c->faults[0];
    *writes = c->faults[1];
    return HB_OK;
}

static const char *sim_kernel_origin(hb_ctx *c, hb_kern *k)
{
    (void)c;
    return k ? k->origin : NULL;
}

static const struct hb_backend sim_backend = {
    .abi = HB_BACKEND_ABI,
    .caps = HB_CAP_IN_PROCESS,
    .name = "sim",
    .langs = "cuda hip",
    .list_devices = sim_list_devices,
    .open = sim_open,
    .close = sim_close,
    .last_error = sim_last_error,
    .alloc = sim_alloc,
    .release = sim_release,
    .upload = sim_upload,
    .download = sim_download,
    .load = sim_load,
    .unload = sim_unload,
    .launch = sim_launch,
    .vendor_sgemm = NULL,
    .vendor_name = NULL,
    .copy = sim_copy,
    .platform = NULL,
    .faults = sim_faults,
    .kernel_origin = sim_kernel_origin,
    .prepare = sim_prepare,
};

const struct hb_backend *hb_backend_entry(void) { return &sim_backend; }
