/* sim_backend.c: the "sim" backend: CUDA and HIP kernel sources, compiled for the host with
 * sim_prelude.h, run on the CPU at warp width 4 to 64, blocks spread over one worker per
 * core (HB_SIM_THREADS). HB_SIM_SCHEDULE = lockstep (default) or random:SEED (sim_sched.c).
 * A source with no current build product (a user's own kernel) is compiled at run time as
 * make would (rtc.h). Buffers are host memory. No timing model, no device API beyond
 * sim_prelude.h. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "rtc.h"
#include "sim_sched.h"

#define SIM_MAX_THREADS 256
#define SIM_MAX_BLOCK_THREADS 1024u
#define SIM_SHARED_BYTES (64u * 1024u)
/* Fill byte of shared memory: 0x4b4b4b4b is 1.33e7 as a float, 1.26e9 as an int. Finite
 * on purpose: NaN would turn every race into the same NaN, hiding that it varies. */
#define SIM_SHARED_POISON 0x4b

static const int sim_widths[] = {4, 8, 16, 32, 64};

struct hb_buf {
    size_t size;
    unsigned char *data;
};

struct hb_kern {
    void *dl;
    void (*fn)(void);
    void *(*tls_touch)(void);
    size_t shared_bytes; /* its PT_TLS segment: static __shared__ arrays */
    int dialect;
    struct sim_dim3 block;
};

struct hb_ctx {
    int width, n_workers, random;
    uint64_t seed, launches;
    char err[1024];
    struct sim_worker *workers[SIM_MAX_THREADS];
    pthread_t threads[SIM_MAX_THREADS];
    struct sim_helper {
        struct hb_ctx *c;
        int idx;
    } helpers[SIM_MAX_THREADS];
    int n_threads; /* started helper threads: workers 1..n_threads (the caller is worker 0) */
    /* Launch hand-off: the caller bumps gen, helpers drain blocks, the last one signals. */
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    uint64_t gen;
    int running, stop;
    const struct sim_launch *job;
    const struct hb_kern *job_kern;
    _Atomic uint64_t next_block;
    uint64_t n_blocks;
    atomic_int failed;
    char job_err[512];
};

static void sim_err(struct hb_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sim_err(struct hb_ctx *c, const char *fmt, ...)
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

static int sim_list_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    if (max < 1)
        return 1;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "SIMT emulator (%d cores)", sim_cores());
    snprintf(out->driver, sizeof out->driver, "hb_sim ABI %d, runtime built by gcc %s",
             SIM_ABI_VERSION, __VERSION__);
    out->n_widths = (int)(sizeof sim_widths / sizeof sim_widths[0]);
    for (int i = 0; i < out->n_widths; i++)
        out->widths[i].width = sim_widths[i]; /* env stays "": the width is an open() argument */
    out->global_mem_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    out->shared_mem_per_block = SIM_SHARED_BYTES;
    return 1;
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
    for (;;) {
        uint64_t b = atomic_fetch_add(&c->next_block, 1);
        if (b >= c->n_blocks || atomic_load(&c->failed))
            return;
        /* Shared memory starts as the same junk in every block and launch, never as
         * leftovers from whichever block ran here before: a read before any write gives a
         * wrong result, and a race gives one that varies with the schedule. */
        if (shared)
            memset(shared, SIM_SHARED_POISON, k->shared_bytes);
        if (sim_run_block(w, c->job, b, err, sizeof err) != 0) {
            if (atomic_exchange(&c->failed, 1) == 0)
                snprintf(c->job_err, sizeof c->job_err, "%s", err);
            return;
        }
    }
}

static void *sim_thread_main(void *arg)
{
    struct sim_helper *h = arg;
    struct hb_ctx *c = h->c;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->gen == seen && !c->stop)
            pthread_cond_wait(&c->start, &c->mu);
        if (c->stop) {
            pthread_mutex_unlock(&c->mu);
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
    free(c);
}

/* HB_SIM_THREADS=N (1..256) and HB_SIM_SCHEDULE=lockstep|random:SEED. */
static int sim_read_env(struct hb_ctx *c)
{
    const char *t = getenv("HB_SIM_THREADS"), *s = getenv("HB_SIM_SCHEDULE");
    c->n_workers = sim_cores();
    if (t && *t) {
        char *end;
        long n = strtol(t, &end, 10);
        if (*end || n < 1 || n > SIM_MAX_THREADS) {
            sim_err(c, "HB_SIM_THREADS=%s: expected a number of workers from 1 to %d", t,
                    SIM_MAX_THREADS);
            return -1;
        }
        c->n_workers = (int)n;
    }
    if (!s || !*s || strcmp(s, "lockstep") == 0)
        return 0;
    if (strncmp(s, "random:", 7) == 0 && s[7]) {
        char *end;
        c->seed = strtoull(s + 7, &end, 0);
        if (!*end) {
            c->random = 1;
            return 0;
        }
    }
    sim_err(c, "HB_SIM_SCHEDULE=%s: expected lockstep or random:SEED", s);
    return -1;
}

static int sim_open(hb_ctx **out, int device, int width, char *err, size_t errlen)
{
    *out = NULL;
    if (device != 0) {
        snprintf(err, errlen, "sim: no device %d (the emulator is device 0)", device);
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

static const char *sim_last_error(hb_ctx *c)
{
    return c ? c->err : "sim: no context";
}

static int sim_alloc(hb_ctx *c, size_t bytes, hb_buf **out)
{
    struct hb_buf *b = calloc(1, sizeof *b);
    /* Cache-line aligned like device allocations; contents are left undefined, as there. */
    size_t rounded = (bytes + 63) / 64 * 64;
    if (b)
        b->data = aligned_alloc(64, rounded ? rounded : 64);
    if (!b || !b->data) {
        free(b);
        sim_err(c, "aligned_alloc(%zu bytes) failed", bytes);
        return HB_ERROR;
    }
    b->size = bytes;
    *out = b;
    return HB_OK;
}

static void sim_release(hb_ctx *c, hb_buf *b)
{
    (void)c;
    if (b)
        free(b->data);
    free(b);
}

static int sim_range_ok(hb_ctx *c, const char *what, const hb_buf *b, size_t off, size_t bytes)
{
    if (off > b->size || bytes > b->size - off) {
        sim_err(c, "%s: range [%zu, +%zu) outside a buffer of %zu bytes", what, off, bytes, b->size);
        return 0;
    }
    return 1;
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

static int sim_copy(hb_ctx *c, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off,
                    size_t bytes, double *device_ms)
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

/* Static __shared__ arrays are the kernel object's thread-local storage (see
 * sim_prelude.h), so its PT_TLS segment size is the block's shared memory footprint. */
struct sim_tls_query {
    const char *name;
    size_t bytes;
};
static int sim_tls_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct sim_tls_query *q = arg;
    if (!info->dlpi_name || strcmp(info->dlpi_name, q->name) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS)
            q->bytes = info->dlpi_phdr[i].p_memsz;
    return 1;
}

/* Compiles a source with no current build product (a user's own kernel, or one edited since
 * make) as backend.mk would, into the run-time cache, and names the .so in path. As for a
 * shipped kernel, one that does not compile for the host is a SKIP with its first error. */
static int sim_compile(struct hb_ctx *c, const struct hb_kernel_spec *s, char *path, size_t len)
{
    char err[512];
    int have = rtc_cache_path(s, "sim", SIM_KERNEL_CXX " " SIM_KERNEL_FLAGS " " SIM_KERNEL_LINK,
                              ".so", path, len, err, sizeof err);
    if (have != 0) {
        if (have < 0)
            sim_err(c, "%s", err);
        return have < 0 ? HB_ERROR : HB_OK;
    }
    /* Per-process temporaries and an atomic rename: children may compile the same kernel. */
    char obj[4200], tmp[4200], log[4200], words[4096], *argv[64];
    snprintf(obj, sizeof obj, "%s.%ld.o", path, (long)getpid());
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    snprintf(log, sizeof log, "%s.%ld.log", path, (long)getpid());
    /* Two steps like make: linking with -fsanitize=thread would pull in TSan's runtime. */
    int n = rtc_split(SIM_KERNEL_CXX " " SIM_KERNEL_FLAGS, words, sizeof words, argv, 59);
    int rc = -1;
    snprintf(err, sizeof err, "too many compiler flags");
    if (n > 0) {
        argv[n] = "-c", argv[n + 1] = (char *)s->source_path, argv[n + 2] = "-o";
        argv[n + 3] = obj, argv[n + 4] = NULL;
        rc = rtc_run(argv, log, err, sizeof err);
    }
    if (rc == 0 && (n = rtc_split(SIM_KERNEL_CXX " " SIM_KERNEL_LINK, words, sizeof words, argv,
                                  59)) > 0) {
        argv[n] = obj, argv[n + 1] = "-o", argv[n + 2] = tmp, argv[n + 3] = NULL;
        rc = rtc_run(argv, log, err, sizeof err);
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, sizeof err, "rename(%.300s): %s", tmp, strerror(errno));
        rc = -1;
    }
    unlink(obj);
    unlink(tmp);
    if (rc > 0) {
        sim_err(c, "does not build for the emulator: %s (log: %s)", err, log);
        return HB_UNSUPPORTED;
    }
    unlink(log);
    if (rc < 0) {
        sim_err(c, "run-time compile of %s: %s", s->source_path, err);
        return HB_ERROR;
    }
    return HB_OK;
}

/* A kernel that did not compile for the host leaves a text marker in place of its .so. */
#define SIM_MARKER "sim-unsupported: "

static int sim_load(hb_ctx *c, const struct hb_kernel_spec *s, hb_kern **out)
{
    char path[4096];
    *out = NULL;
    if (strcmp(s->lang, "cuda") != 0 && strcmp(s->lang, "hip") != 0) {
        sim_err(c, "the emulator runs cuda and hip sources, not %s", s->lang);
        return HB_UNSUPPORTED;
    }
    if (strcmp(s->lang, "cuda") == 0 && c->width > 32) {
        sim_err(c, "CUDA dialect masks are 32-bit: width %d not modelled", c->width);
        return HB_UNSUPPORTED;
    }
    uint64_t threads = (uint64_t)s->block[0] * s->block[1] * s->block[2];
    if (threads == 0 || threads > SIM_MAX_BLOCK_THREADS) {
        sim_err(c, "block %ux%ux%u: the emulator runs 1 to %u threads per block", s->block[0],
                s->block[1], s->block[2], SIM_MAX_BLOCK_THREADS);
        return HB_UNSUPPORTED;
    }
    char sub[16], why[512];
    snprintf(sub, sizeof sub, "sim/%s", s->lang);
    int current = rtc_prebuilt(s, sub, ".so", path, sizeof path, why, sizeof why);
    if (current < 0) {
        sim_err(c, "%s", why);
        return HB_ERROR;
    }
    int rc = current ? HB_OK : sim_compile(c, s, path, sizeof path);
    if (rc != HB_OK)
        return rc;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_err(c, "does not build for the emulator: %s: %s (run make)", path, strerror(errno));
        return HB_UNSUPPORTED;
    }
    char head[512] = {0};
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    if (got < 4 || memcmp(head, "\177ELF", 4) != 0) {
        char *nl = strchr(head, '\n');
        if (nl)
            *nl = 0;
        const char *why = strncmp(head, SIM_MARKER, strlen(SIM_MARKER)) == 0
                              ? head + strlen(SIM_MARKER) : "not a shared object";
        sim_err(c, "does not build for the emulator: %s", why);
        return HB_UNSUPPORTED;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        sim_err(c, "dlopen(%s): %s", path, dlerror());
        return HB_ERROR;
    }
    const int *abi = dlsym(dl, "sim_kernel_abi"), *dialect = dlsym(dl, "sim_kernel_dialect");
    void *fn = dlsym(dl, s->entry), *touch = dlsym(dl, "sim_kernel_tls_touch");
    rc = HB_ERROR;
    struct sim_tls_query q = {path, 0};
    struct link_map *lm = NULL;
    if (!abi || !dialect || !touch || *abi != SIM_ABI_VERSION) {
        sim_err(c, "%s: not built with this emulator's prelude (ABI %d); rebuild with make", path,
                abi ? *abi : -1);
    } else if (!fn) {
        sim_err(c, "dlsym(%s) in %s: %s", s->entry, path, dlerror());
    } else if (*dialect == SIM_DIALECT_CUDA && c->width > 32) {
        sim_err(c, "CUDA dialect masks are 32-bit: width %d not modelled", c->width);
        rc = HB_UNSUPPORTED;
    } else if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
        sim_err(c, "dlinfo(%s, RTLD_DI_LINKMAP): %s", path, dlerror());
    } else {
        q.name = lm->l_name;
        dl_iterate_phdr(sim_tls_cb, &q);
        if (q.bytes > SIM_SHARED_BYTES) {
            sim_err(c, "%s uses %zu bytes of static shared memory, more than %u", s->entry,
                    q.bytes, SIM_SHARED_BYTES);
            rc = HB_UNSUPPORTED;
        } else {
            rc = HB_OK;
        }
    }
    struct hb_kern *k = rc == HB_OK ? calloc(1, sizeof *k) : NULL;
    if (rc == HB_OK && !k) {
        sim_err(c, "calloc(kernel) failed");
        rc = HB_ERROR;
    }
    if (rc != HB_OK) {
        dlclose(dl);
        return rc;
    }
    k->dl = dl;
    /* POSIX dlsym returns object pointers; the entry is a function by construction. */
    memcpy(&k->fn, &fn, sizeof fn);
    memcpy(&k->tls_touch, &touch, sizeof touch);
    k->shared_bytes = q.bytes;
    k->dialect = *dialect;
    k->block = (struct sim_dim3){s->block[0], s->block[1], s->block[2]};
    *out = k;
    return HB_OK;
}

static void sim_unload(hb_ctx *c, hb_kern *k)
{
    (void)c;
    if (!k)
        return;
    dlclose(k->dl);
    free(k);
}

static int sim_launch(hb_ctx *c, hb_kern *k, const unsigned grid[3], const struct hb_args *a,
                      double *device_ms)
{
    struct sim_launch L;
    memset(&L, 0, sizeof L);
    if (a->n_bufs < 1 || a->n_bufs > SIM_MAX_BUFS || a->n_ints < 0 || a->n_ints > SIM_MAX_INTS) {
        sim_err(c, "launch: %d buffers and %d integers: the emulator calls 1-%d and 0-%d",
                a->n_bufs, a->n_ints, SIM_MAX_BUFS, SIM_MAX_INTS);
        return HB_UNSUPPORTED;
    }
    for (int i = 0; i < a->n_bufs; i++) {
        if (!a->bufs[i] || a->offsets[i] > a->bufs[i]->size) {
            sim_err(c, "launch: buffer argument %d: offset %zu outside its allocation", i,
                    a->offsets[i]);
            return HB_ERROR;
        }
        L.call.bufs[i] = a->bufs[i]->data + a->offsets[i];
    }
    for (int i = 0; i < a->n_ints; i++)
        L.call.ints[i] = a->ints[i];
    L.call.fn = k->fn;
    L.call.n_bufs = a->n_bufs;
    L.call.n_ints = a->n_ints;
    L.grid = (struct sim_dim3){grid[0], grid[1], grid[2]};
    L.block = k->block;
    L.width = c->width;
    L.random = c->random;
    L.volatile_yield = c->random && k->dialect == SIM_DIALECT_CUDA;
    /* Each launch gets its own orders, reproducible from SEED and the launch number. */
    L.seed = sim_mix(c->seed ^ sim_mix(++c->launches));
    double t0 = sim_now_ms();
    c->job = &L;
    c->job_kern = k;
    c->n_blocks = (uint64_t)grid[0] * grid[1] * grid[2];
    atomic_store(&c->next_block, 0);
    atomic_store(&c->failed, 0);
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
    c->job = NULL;
    c->job_kern = NULL;
    if (device_ms)
        *device_ms = sim_now_ms() - t0;
    if (atomic_load(&c->failed)) {
        sim_err(c, "launch: %s", c->job_err);
        return HB_ERROR;
    }
    return HB_OK;
}

static const struct hb_backend sim_backend = {
    .abi = HB_BACKEND_ABI,
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
};

const struct hb_backend *hb_backend_entry(void)
{
    return &sim_backend;
}
