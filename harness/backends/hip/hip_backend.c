/* SPDX-License-Identifier: MIT */
/* hip_backend.c: the HIP backend, on the HIP platform backend.mk compiles it for: AMD (ROCm,
 * bundles build/kernels/hip/<stem>.hsaco) or NVIDIA (HIP mapped onto CUDA, build/kernels/hip-nv/
 * <stem>.fatbin). A kernel with no current product (a user's own) is compiled at run time by
 * hipcc or nvcc; hipModuleLoad, hipModuleLaunchKernel, hipEvents. No vendor SGEMM (rocBLAS is
 * not in Debian 12); the only width is the device's warpSize. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "backend.h"
#include "hbc.h"
#include "hip_error.h"
#include "hip_rtc.h"
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
    unsigned shared_bytes; /* dynamic shared memory per block */
    char origin[2048];     /* the binary that runs (hip_rtc_origin) */
};

/* The device's code target: "gfx90a" from "gfx90a:sramecc+:xnack-" on AMD; "sm_90" on
 * NVIDIA, where HIP 5.2 leaves gcnArchName unset. */
static void hip_arch(const hipDeviceProp_t *p, char *out, size_t len)
{
#ifdef __HIP_PLATFORM_NVIDIA__
    hip_fmt(out, len, "sm_%d%d", p->major, p->minor);
#else
    hip_fmt(out, len, "%.*s", (int)strcspn(p->gcnArchName, ":"), p->gcnArchName);
#endif
}

#define HIP_CTX_TRY(ctx, call)                                                                                         \
    do {                                                                                                               \
        hipError_t hip_e_ = (call);                                                                                    \
        if (hip_e_ != hipSuccess)                                                                                      \
            return hip_fail((ctx)->err, sizeof(ctx)->err, #call, hip_e_);                                              \
    } while (0)

static int hip_list_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    int n = 0;
    hipError_t e = hipGetDeviceCount(&n);
    if (hip_is_no_device(e)) {
        /* The runtime is installed but sees no GPU: not an error, but the message says why. */
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
        char arch[64];
        hip_arch(&p, arch, sizeof arch);
#ifdef __HIP_PLATFORM_NVIDIA__
        /* HIP's versions are CUDA's here: the runtime and driver, 13000 for 13.0 */
        hip_fmt(d->name, sizeof d->name, "%.127s", p.name);
        hip_fmt(d->driver, sizeof d->driver,
                "nvidia platform: HIP %d.%d headers, CUDA runtime %d.%d, "
                "driver %d.%d, %s",
                HIP_VERSION_MAJOR, HIP_VERSION_MINOR, rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10, arch);
#else
        hip_fmt(d->name, sizeof d->name, "%s (%s)", p.name, arch);
        hip_fmt(d->driver, sizeof d->driver, "HIP runtime %d, driver %d", rt, drv);
#endif
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
    if (hip_is_no_device(e)) {
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
     * target's one width (wave64 on CDNA, wave32 on RDNA and NVIDIA), so any other is a SKIP. */
    if (width != p.warpSize) {
        char arch[64];
        hip_arch(&p, arch, sizeof arch);
        hip_fmt(err, errlen, "width %d not offered: %s (%s) runs %d-wide wavefronts", width, p.name, arch, p.warpSize);
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

static const char *hip_last_error(hb_ctx *ctx) { return ctx ? ctx->err : "no HIP context"; }

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
    return hbc_range_ok(b->bytes, off, bytes, what, ctx->err, sizeof ctx->err) ? HB_OK : HB_ERROR;
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

/* The current device's code target, for a run-time compile (hip_rtc.c). */
static int hip_device_arch(hb_ctx *ctx, char *arch, size_t len)
{
    int dev = 0;
    hipDeviceProp_t p;
    hipError_t e = hipGetDevice(&dev);
    if (e == hipSuccess)
        e = hipGetDeviceProperties(&p, dev);
    if (e != hipSuccess)
        return hip_fail(ctx->err, sizeof ctx->err, "hipGetDeviceProperties", e);
    hip_arch(&p, arch, len);
    return HB_OK;
}

static int hip_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out)
{
    *out = NULL;
    if (strcmp(spec->lang, "hip") != 0) {
        hip_fmt(ctx->err, sizeof ctx->err, "kernel %s is %s, the HIP backend runs hip only", spec->name, spec->lang);
        return HB_UNSUPPORTED;
    }
    char path[PATH_MAX], arch[64];
    int current = rtc_prebuilt(spec, HIP_PRODUCT_DIR, HIP_PRODUCT_EXT, path, sizeof path, ctx->err, sizeof ctx->err);
    if (current < 0)
        return HB_ERROR;
    if (!current) {
        int rc = hip_device_arch(ctx, arch, sizeof arch);
        if (rc == HB_OK)
            rc = hip_rtc_compile(spec, arch, path, sizeof path, ctx->err, sizeof ctx->err);
        if (rc != HB_OK)
            return rc;
    }
    hb_kern *k = calloc(1, sizeof *k);
    if (!k) {
        hip_fmt(ctx->err, sizeof ctx->err, "calloc: out of memory");
        return HB_ERROR;
    }
    /* A product without this device's target (a HIP_ARCHS or CUDA_ARCHS choice, not a kernel
     * bug) fails here with hipErrorNoBinaryForGpu: a SKIP that says so. */
    hipError_t e = hipModuleLoad(&k->module, path);
    if (e != hipSuccess) {
        free(k);
        char call[PATH_MAX + 32];
        hip_fmt(call, sizeof call, "hipModuleLoad(%s)", path);
        hip_fail(ctx->err, sizeof ctx->err, call, e);
        if (e != hipErrorNoBinaryForGpu)
            return HB_ERROR;
        size_t used = strlen(ctx->err);
        hip_fmt(ctx->err + used, sizeof ctx->err - used, " (rebuild with %s)",
                HIP_PLATFORM_NAME ? "CUDA_ARCHS" : "HIP_ARCHS");
        return HB_UNSUPPORTED;
    }
    /* The entry as written, else the kernel of that C++ name (a namespace, a template-id): the
     * code object has mangled names only. */
    char symbol[1024], held[300];
    e = hipModuleGetFunction(&k->fn, k->module, spec->entry);
    if (e != hipSuccess && hip_rtc_symbol(spec->entry, path, symbol, sizeof symbol, held, sizeof held))
        e = hipModuleGetFunction(&k->fn, k->module, symbol);
    if (e != hipSuccess) {
        (void)hipModuleUnload(k->module);
        free(k);
        char call[500];
        hip_fmt(call, sizeof call, "hipModuleGetFunction(%.100s)%s%s", spec->entry, held[0] ? ", which holds " : "",
                held);
        return hip_fail(ctx->err, sizeof ctx->err, call, e);
    }
    memcpy(k->block, spec->block, sizeof k->block);
    k->shared_bytes = spec->shared_bytes;
    hip_rtc_origin(spec, path, current ? NULL : arch, k->origin, sizeof k->origin);
    *out = k;
    return HB_OK;
}

static const char *hip_kernel_origin(hb_ctx *ctx, hb_kern *kern)
{
    return (void)ctx, kern && kern->origin[0] ? kern->origin : NULL;
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

/* hipModuleLaunchKernel's kernelParams: one address per parameter, each of its value. */
struct hip_params {
    void *ptrs[HB_MAX_BUF_ARGS];
    int32_t ints[HB_MAX_INT_ARGS];
    int64_t wide[HB_MAX_PARAMS]; /* integers declared 64-bit (n:u64) */
    float floats[HB_MAX_FLOAT_ARGS];
    void *addr[HB_MAX_PARAMS];
    int n;
};

/* One parameter of kind k, the index-th of its kind; HB_ERROR past what the core filled. */
static int hip_param(hb_ctx *ctx, const struct hb_args *args, struct hip_params *hp, int kind, int index)
{
    int have = kind == HB_PARAM_BUF                           ? args->n_bufs
               : kind == HB_PARAM_I32 || kind == HB_PARAM_I64 ? args->n_ints
               : kind == HB_PARAM_F32                         ? args->n_floats
                                                              : 0;
    if (hp->n == HB_MAX_PARAMS || index < 0 || index >= have) {
        hip_fmt(ctx->err, sizeof ctx->err,
                "launch: parameter %d (kind %d, index %d) is not among "
                "the %d given",
                hp->n, kind, index, have);
        return HB_ERROR;
    }
    if (kind == HB_PARAM_BUF) {
        if (hip_check_range(ctx, "launch argument", args->bufs[index], args->offsets[index], 0) != HB_OK)
            return HB_ERROR;
        hp->ptrs[index] = args->bufs[index]->ptr + args->offsets[index];
        hp->addr[hp->n++] = &hp->ptrs[index];
    } else if (kind == HB_PARAM_I32) {
        hp->ints[index] = args->ints[index];
        hp->addr[hp->n++] = &hp->ints[index];
    } else if (kind == HB_PARAM_I64) {
        hp->wide[hp->n] = args->ints[index];
        hp->addr[hp->n] = &hp->wide[hp->n], hp->n++;
    } else {
        hp->floats[index] = args->floats[index]; /* a 4-byte float, as the kernel declares it */
        hp->addr[hp->n++] = &hp->floats[index];
    }
    return HB_OK;
}

/* The kernel's declared order (args->params) when there is one, else the op's default ABI:
 * buffers, then 32-bit integers. */
static int hip_params(hb_ctx *ctx, const struct hb_args *args, struct hip_params *hp)
{
    hp->n = 0;
    if (args->n_bufs < 0 || args->n_bufs > HB_MAX_BUF_ARGS || args->n_ints < 0 || args->n_ints > HB_MAX_INT_ARGS ||
        args->n_floats < 0 || args->n_floats > HB_MAX_FLOAT_ARGS || args->n_params < 0 ||
        args->n_params > HB_MAX_PARAMS) {
        hip_fmt(ctx->err, sizeof ctx->err,
                "launch: %d buffers, %d integers, %d floats, %d "
                "parameters is out of range",
                args->n_bufs, args->n_ints, args->n_floats, args->n_params);
        return HB_ERROR;
    }
    for (int i = 0; i < args->n_params; ++i)
        if (hip_param(ctx, args, hp, args->params[i].kind, args->params[i].index) != HB_OK)
            return HB_ERROR;
    for (int i = 0; args->n_params == 0 && i < args->n_bufs + args->n_ints; ++i) {
        int buf = i < args->n_bufs;
        if (hip_param(ctx, args, hp, buf ? HB_PARAM_BUF : HB_PARAM_I32, buf ? i : i - args->n_bufs) != HB_OK)
            return HB_ERROR;
    }
    return HB_OK;
}

static int hip_launch(hb_ctx *ctx, hb_kern *kern, const unsigned grid[3], const struct hb_args *args, double *device_ms)
{
    if (device_ms)
        *device_ms = 0.0;
    struct hip_params hp;
    if (hip_params(ctx, args, &hp) != HB_OK)
        return HB_ERROR;
    /* An empty grid (M or N = 0) has nothing to run; HIP would reject it as invalid. */
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return HB_OK;
    HIP_CTX_TRY(ctx, hipEventRecord(ctx->start, ctx->stream));
    HIP_CTX_TRY(ctx, hipModuleLaunchKernel(kern->fn, grid[0], grid[1], grid[2], kern->block[0], kern->block[1],
                                           kern->block[2], kern->shared_bytes, ctx->stream, hp.addr, NULL));
    return hip_timed_wait(ctx, device_ms);
}

static int hip_copy(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes,
                    double *device_ms)
{
    if (hip_check_range(ctx, "copy destination", dst, dst_off, bytes) != HB_OK ||
        hip_check_range(ctx, "copy source", src, src_off, bytes) != HB_OK)
        return HB_ERROR;
    HIP_CTX_TRY(ctx, hipEventRecord(ctx->start, ctx->stream));
    HIP_CTX_TRY(ctx,
                hipMemcpyAsync(dst->ptr + dst_off, src->ptr + src_off, bytes, hipMemcpyDeviceToDevice, ctx->stream));
    return hip_timed_wait(ctx, device_ms);
}

static const struct hb_backend hip_backend = {
    .abi = HB_BACKEND_ABI,
    .caps = HB_CAP_RAW_POINTERS,
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
    .platform = HIP_PLATFORM_NAME,
    .kernel_origin = hip_kernel_origin,
};

/* Before any call into the driver, which reads the setting when it makes a context. */
const struct hb_backend *hb_backend_entry(void)
{
    hbc_one_work_queue();
    return &hip_backend;
}
