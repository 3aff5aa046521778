/* hip_backend.c: the HIP (ROCm) backend: fills struct hb_backend with the HIP runtime API.
 * Kernels are the code-object bundles make builds (build/kernels/hip/<stem>.hsaco), or ones
 * hipcc builds at run time when none is current (a user's own kernel; no hiprtc), loaded
 * with hipModuleLoad and launched with hipModuleLaunchKernel, timed with hipEvents.
 * It offers no vendor SGEMM: rocBLAS is not packaged for Debian 12. The only width offered
 * is the device's own warpSize. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "backend.h"
#include "rtc.h"

struct hb_ctx {
    hipStream_t stream;
    hipEvent_t start, stop;
    char err[512];
};

struct hb_buf {
    char *ptr;
    size_t bytes;
};

struct hb_kern {
    hipModule_t module;
    hipFunction_t fn;
    unsigned block[3];
};

static void hip_fmt(char *dst, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, len, fmt, ap);
    va_end(ap);
}

/* "hipErrorX (text)": HIP 5.2's hipGetErrorString often returns the name again,
 * and saying it twice helps nobody. */
static const char *hip_errtext(hipError_t e, char *buf, size_t len)
{
    const char *name = hipGetErrorName(e), *text = hipGetErrorString(e);
    if (strcmp(name, text) == 0)
        hip_fmt(buf, len, "%s", name);
    else
        hip_fmt(buf, len, "%s (%s)", name, text);
    return buf;
}

/* Every failing HIP call is reported the same way: the call, then the error. */
static int hip_fail(char *dst, size_t len, const char *call, hipError_t e)
{
    char t[160];
    hip_fmt(dst, len, "%s: %s", call, hip_errtext(e, t, sizeof t));
    return HB_ERROR;
}

/* The no-device message names the likely cause: ROCm needs the amdgpu kernel driver's
 * /dev/kfd, which a machine without an AMD GPU (or a container not given it) lacks. */
static void hip_no_device(char *dst, size_t len, hipError_t e)
{
    char t[160];
    hip_fmt(dst, len, "no HIP device: %s from hipGetDeviceCount (%s)", hip_errtext(e, t, sizeof t),
            access("/dev/kfd", R_OK | W_OK) == 0 ? "/dev/kfd is present: no supported GPU agent"
                                                 : "/dev/kfd missing or not accessible");
}

#define HIP_CTX_TRY(ctx, call)                                                             \
    do {                                                                                   \
        hipError_t hip_e_ = (call);                                                        \
        if (hip_e_ != hipSuccess)                                                          \
            return hip_fail((ctx)->err, sizeof (ctx)->err, #call, hip_e_);                \
    } while (0)

static int hip_list_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    int n = 0;
    hipError_t e = hipGetDeviceCount(&n);
    if (e == hipErrorNoDevice) {
        /* The runtime is installed but sees no GPU (no /dev/kfd, or no supported agent):
         * not an error, but the message says which case this is. */
        hip_no_device(err, errlen, e);
        return 0;
    }
    if (e != hipSuccess) {
        hip_fail(err, errlen, "hipGetDeviceCount", e);
        return -1;
    }
    int rt = 0, drv = 0;
    /* versions only label the report; a failure here leaves them 0 */
    (void)hipRuntimeGetVersion(&rt);
    (void)hipDriverGetVersion(&drv);
    for (int i = 0; i < n && i < max; ++i) {
        hipDeviceProp_t p;
        e = hipGetDeviceProperties(&p, i);
        if (e != hipSuccess) {
            hip_fail(err, errlen, "hipGetDeviceProperties", e);
            return -1;
        }
        struct hb_device_info *d = &out[i];
        memset(d, 0, sizeof *d);
        hip_fmt(d->name, sizeof d->name, "%s (%s)", p.name, p.gcnArchName);
        hip_fmt(d->driver, sizeof d->driver, "HIP runtime %d, driver %d", rt, drv);
        d->n_widths = 1;
        d->widths[0].width = p.warpSize;
        d->global_mem_bytes = p.totalGlobalMem;
        d->shared_mem_per_block = (uint32_t)p.sharedMemPerBlock;
    }
    return n < max ? n : max;
}

static void hip_close(hb_ctx *ctx)
{
    if (!ctx)
        return;
    /* teardown errors are not actionable: the child process ends right after */
    if (ctx->start)
        (void)hipEventDestroy(ctx->start);
    if (ctx->stop)
        (void)hipEventDestroy(ctx->stop);
    if (ctx->stream)
        (void)hipStreamDestroy(ctx->stream);
    free(ctx);
}

static int hip_open(hb_ctx **out, int device, int width, char *err, size_t errlen)
{
    *out = NULL;
    int n = 0;
    hipError_t e = hipGetDeviceCount(&n);
    if (e == hipErrorNoDevice) {
        hip_no_device(err, errlen, e);
        return HB_NO_DEVICE;
    }
    if (e != hipSuccess)
        return hip_fail(err, errlen, "hipGetDeviceCount", e);
    if (device < 0 || device >= n) {
        hip_fmt(err, errlen, "HIP device %d does not exist (%d present)", device, n);
        return HB_NO_DEVICE;
    }
    hipDeviceProp_t p;
    e = hipGetDeviceProperties(&p, device);
    if (e != hipSuccess)
        return hip_fail(err, errlen, "hipGetDeviceProperties", e);
    /* HIP has no way to pick the wavefront size at launch: a code object is built for the
     * target's one width (wave64 on CDNA, wave32 on RDNA), so any other width is a SKIP. */
    if (width != p.warpSize) {
        hip_fmt(err, errlen, "width %d not offered: %s (%s) runs %d-wide wavefronts", width,
                p.name, p.gcnArchName, p.warpSize);
        return HB_UNSUPPORTED;
    }
    e = hipSetDevice(device);
    if (e != hipSuccess)
        return hip_fail(err, errlen, "hipSetDevice", e);

    hb_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        hip_fmt(err, errlen, "calloc: out of memory");
        return HB_ERROR;
    }
    const char *call = "hipStreamCreate";
    e = hipStreamCreate(&ctx->stream);
    if (e == hipSuccess) {
        call = "hipEventCreate";
        e = hipEventCreate(&ctx->start);
    }
    if (e == hipSuccess)
        e = hipEventCreate(&ctx->stop);
    if (e != hipSuccess) {
        hip_fail(err, errlen, call, e);
        hip_close(ctx);
        return HB_ERROR;
    }
    *out = ctx;
    return HB_OK;
}

static const char *hip_last_error(hb_ctx *ctx)
{
    return ctx ? ctx->err : "no HIP context";
}

static int hip_alloc(hb_ctx *ctx, size_t bytes, hb_buf **out)
{
    *out = NULL;
    hb_buf *b = calloc(1, sizeof *b);
    if (!b) {
        hip_fmt(ctx->err, sizeof ctx->err, "calloc: out of memory");
        return HB_ERROR;
    }
    /* hipMalloc(0) yields NULL; one byte keeps every buffer a real, distinct pointer */
    hipError_t e = hipMalloc((void **)&b->ptr, bytes ? bytes : 1);
    if (e != hipSuccess) {
        free(b);
        char call[64];
        hip_fmt(call, sizeof call, "hipMalloc(%zu bytes)", bytes);
        return hip_fail(ctx->err, sizeof ctx->err, call, e);
    }
    b->bytes = bytes;
    *out = b;
    return HB_OK;
}

static void hip_release(hb_ctx *ctx, hb_buf *buf)
{
    (void)ctx;
    if (!buf)
        return;
    (void)hipFree(buf->ptr); /* a failing free has no caller to tell */
    free(buf);
}

static int hip_check_range(hb_ctx *ctx, const char *what, const hb_buf *b, size_t off, size_t bytes)
{
    if (off > b->bytes || bytes > b->bytes - off) {
        hip_fmt(ctx->err, sizeof ctx->err, "%s: range [%zu, +%zu) outside a %zu-byte buffer", what,
                off, bytes, b->bytes);
        return HB_ERROR;
    }
    return HB_OK;
}

static int hip_upload(hb_ctx *ctx, hb_buf *dst, size_t offset, const void *src, size_t bytes)
{
    if (hip_check_range(ctx, "upload", dst, offset, bytes) != HB_OK)
        return HB_ERROR;
    HIP_CTX_TRY(ctx, hipMemcpy(dst->ptr + offset, src, bytes, hipMemcpyHostToDevice));
    return HB_OK;
}

static int hip_download(hb_ctx *ctx, hb_buf *src, size_t offset, void *dst, size_t bytes)
{
    if (hip_check_range(ctx, "download", src, offset, bytes) != HB_OK)
        return HB_ERROR;
    HIP_CTX_TRY(ctx, hipMemcpy(dst, src->ptr + offset, bytes, hipMemcpyDeviceToHost));
    return HB_OK;
}

/* Compiles a source with no current code object (a user's own kernel) with hipcc ($HIPCC, else
 * the one make used) for this device's target only, into the run-time cache, and names the
 * code object in path. A compile error is the user's to fix: HB_ERROR with its first line. */
static int hip_compile(hb_ctx *ctx, const struct hb_kernel_spec *spec, char *path, size_t len)
{
    int dev = 0;
    hipDeviceProp_t p;
    hipError_t e = hipGetDevice(&dev);
    if (e == hipSuccess)
        e = hipGetDeviceProperties(&p, dev);
    if (e != hipSuccess)
        return hip_fail(ctx->err, sizeof ctx->err, "hipGetDeviceProperties", e);
    /* "gfx90a:sramecc+:xnack-": the target is the name before the feature flags. */
    char arch[96], key[PATH_MAX + 128];
    hip_fmt(arch, sizeof arch, "--offload-arch=%.*s", (int)strcspn(p.gcnArchName, ":"),
            p.gcnArchName);
    const char *hipcc = getenv("HIPCC");
    if (!hipcc || !*hipcc)
        hipcc = HIP_HIPCC;
    if (strchr(hipcc, '/') && access(hipcc, X_OK) != 0) {
        hip_fmt(ctx->err, sizeof ctx->err, "hipcc not found at %s (set HIPCC): cannot compile %s "
                "at run time", hipcc, spec->source_path);
        return HB_UNSUPPORTED;
    }
    hip_fmt(key, sizeof key, "%s --genco %s -O3", hipcc, arch);
    int have = rtc_cache_path(spec, "hip", key, ".hsaco", path, len, ctx->err, sizeof ctx->err);
    if (have != 0)
        return have < 0 ? HB_ERROR : HB_OK;
    char why[400];
    char *argv[] = {(char *)hipcc, "--genco", arch, "-O3", (char *)spec->source_path, "-o", NULL, NULL};
    int rc = rtc_build(argv, 6, path, why, sizeof why);
    if (rc > 0) {
        hip_fmt(ctx->err, sizeof ctx->err, "hipcc %s does not compile: %s", arch + 15, why);
        return HB_ERROR;
    }
    if (rc < 0)
        hip_fmt(ctx->err, sizeof ctx->err, "run-time compile of %s: %s", spec->source_path, why);
    return rc < 0 ? HB_ERROR : HB_OK;
}

static int hip_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out)
{
    *out = NULL;
    if (strcmp(spec->lang, "hip") != 0) {
        hip_fmt(ctx->err, sizeof ctx->err, "kernel %s is %s, the HIP backend runs hip only",
                spec->name, spec->lang);
        return HB_UNSUPPORTED;
    }
    char path[PATH_MAX];
    int current = rtc_prebuilt(spec, "hip", ".hsaco", path, sizeof path, ctx->err, sizeof ctx->err);
    if (current < 0)
        return HB_ERROR;
    int rc = current ? HB_OK : hip_compile(ctx, spec, path, sizeof path);
    if (rc != HB_OK)
        return rc;
    hb_kern *k = calloc(1, sizeof *k);
    if (!k) {
        hip_fmt(ctx->err, sizeof ctx->err, "calloc: out of memory");
        return HB_ERROR;
    }
    /* A bundle without this device's gfx target fails here with
     * hipErrorNoBinaryForGpu: build with HIP_ARCHS including it. */
    hipError_t e = hipModuleLoad(&k->module, path);
    if (e != hipSuccess) {
        free(k);
        char call[PATH_MAX + 32];
        hip_fmt(call, sizeof call, "hipModuleLoad(%s)", path);
        return hip_fail(ctx->err, sizeof ctx->err, call, e);
    }
    e = hipModuleGetFunction(&k->fn, k->module, spec->entry);
    if (e != hipSuccess) {
        (void)hipModuleUnload(k->module);
        free(k);
        char call[160];
        hip_fmt(call, sizeof call, "hipModuleGetFunction(%s)", spec->entry);
        return hip_fail(ctx->err, sizeof ctx->err, call, e);
    }
    memcpy(k->block, spec->block, sizeof k->block);
    *out = k;
    return HB_OK;
}

static void hip_unload(hb_ctx *ctx, hb_kern *kern)
{
    (void)ctx;
    if (!kern)
        return;
    (void)hipModuleUnload(kern->module);
    free(kern);
}

/* Records start, runs what the caller enqueued between, records stop, waits, reads the time. */
static int hip_timed_wait(hb_ctx *ctx, double *device_ms)
{
    HIP_CTX_TRY(ctx, hipEventRecord(ctx->stop, ctx->stream));
    HIP_CTX_TRY(ctx, hipEventSynchronize(ctx->stop));
    float ms = 0.0f;
    HIP_CTX_TRY(ctx, hipEventElapsedTime(&ms, ctx->start, ctx->stop));
    if (device_ms)
        *device_ms = ms;
    return HB_OK;
}

static int hip_launch(hb_ctx *ctx, hb_kern *kern, const unsigned grid[3], const struct hb_args *args,
                      double *device_ms)
{
    if (device_ms)
        *device_ms = 0.0;
    if (args->n_bufs < 0 || args->n_bufs > HB_MAX_BUF_ARGS || args->n_ints < 0 ||
        args->n_ints > HB_MAX_INT_ARGS) {
        hip_fmt(ctx->err, sizeof ctx->err, "launch: %d buffers and %d integers is out of range",
                args->n_bufs, args->n_ints);
        return HB_ERROR;
    }
    /* An empty grid (M or N = 0) has nothing to run; HIP would reject it as invalid. */
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return HB_OK;

    void *ptrs[HB_MAX_BUF_ARGS];
    int32_t ints[HB_MAX_INT_ARGS];
    void *params[HB_MAX_BUF_ARGS + HB_MAX_INT_ARGS];
    int np = 0;
    for (int i = 0; i < args->n_bufs; ++i) {
        if (hip_check_range(ctx, "launch argument", args->bufs[i], args->offsets[i], 0) != HB_OK)
            return HB_ERROR;
        ptrs[i] = args->bufs[i]->ptr + args->offsets[i];
        params[np++] = &ptrs[i];
    }
    for (int i = 0; i < args->n_ints; ++i) {
        ints[i] = args->ints[i];
        params[np++] = &ints[i];
    }
    HIP_CTX_TRY(ctx, hipEventRecord(ctx->start, ctx->stream));
    HIP_CTX_TRY(ctx, hipModuleLaunchKernel(kern->fn, grid[0], grid[1], grid[2], kern->block[0],
                                           kern->block[1], kern->block[2], 0, ctx->stream, params,
                                           NULL));
    return hip_timed_wait(ctx, device_ms);
}

static int hip_copy(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off,
                    size_t bytes, double *device_ms)
{
    if (hip_check_range(ctx, "copy destination", dst, dst_off, bytes) != HB_OK ||
        hip_check_range(ctx, "copy source", src, src_off, bytes) != HB_OK)
        return HB_ERROR;
    HIP_CTX_TRY(ctx, hipEventRecord(ctx->start, ctx->stream));
    HIP_CTX_TRY(ctx, hipMemcpyAsync(dst->ptr + dst_off, src->ptr + src_off, bytes,
                                    hipMemcpyDeviceToDevice, ctx->stream));
    return hip_timed_wait(ctx, device_ms);
}

static const struct hb_backend hip_backend = {
    .abi = HB_BACKEND_ABI,
    .name = "hip",
    .langs = "hip",
    .list_devices = hip_list_devices,
    .open = hip_open,
    .close = hip_close,
    .last_error = hip_last_error,
    .alloc = hip_alloc,
    .release = hip_release,
    .upload = hip_upload,
    .download = hip_download,
    .load = hip_load,
    .unload = hip_unload,
    .launch = hip_launch,
    .vendor_sgemm = NULL, /* rocBLAS: not in Debian 12 (apt-cache policy librocblas-dev: none) */
    .vendor_name = NULL,
    .copy = hip_copy,
};

const struct hb_backend *hb_backend_entry(void)
{
    return &hip_backend;
}
