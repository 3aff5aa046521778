/* cu_backend.c: the CUDA backend (hb_cuda.so). Runs kernels from the fatbins that
 * backend.mk builds (build/kernels/cuda/<stem>.fatbin), or compiled at run time with NVRTC
 * when none is current (a user's own kernel), through the runtime API's library calls,
 * times them with events, and offers cuBLAS SGEMM (full fp32) and a device-to-device copy
 * as yardsticks. It offers width 32 only, never resets the device, and never exits: a dead
 * context is reported as a sticky error. */
#include "backend.h"
#include "cu_info.h"
#include "rtc.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hb_ctx {
    cudaStream_t stream; /* every call runs here and waits for it, so calls never overlap */
    cudaEvent_t ev_start, ev_stop;
    cublasHandle_t blas; /* created on first vendor_sgemm: it costs time and memory */
    int sticky;          /* the context is dead: every later call repeats err */
    char err[512];
    /* NVRTC, dlopen'ed on the first run-time compile: only users' own kernels need it,
     * and a machine may have the driver and cudart without the toolkit's libnvrtc. */
    void *nvrtc;
    nvrtcResult (*rtc_create)(nvrtcProgram *, const char *, const char *, int,
                              const char *const *, const char *const *);
    nvrtcResult (*rtc_compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*rtc_log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*rtc_log)(nvrtcProgram, char *);
    nvrtcResult (*rtc_cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*rtc_cubin)(nvrtcProgram, char *);
    nvrtcResult (*rtc_destroy)(nvrtcProgram *);
    const char *(*rtc_errstr)(nvrtcResult);
};

struct hb_buf {
    void *ptr;
    size_t bytes;
};

struct hb_kern {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    unsigned block[3];
};

static void cu_msg(char *dst, size_t len, const char *call, cudaError_t e)
{
    snprintf(dst, len, "%s: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* Records a failed call. An error that survives clearing the last error and a
 * device sync has poisoned the context (illegal address, trap...): from then on
 * every call fails with it, and the core restarts the child. */
static int cu_fail(hb_ctx *ctx, const char *call, cudaError_t e)
{
    cu_msg(ctx->err, sizeof ctx->err, call, e);
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess) {
        char first[sizeof ctx->err];
        memcpy(first, ctx->err, sizeof first);
        snprintf(ctx->err, sizeof ctx->err, "sticky CUDA error, context unusable: %.470s", first);
        ctx->sticky = 1;
    }
    return HB_ERROR;
}

static int cu_blas_fail(hb_ctx *ctx, const char *call, cublasStatus_t s)
{
    snprintf(ctx->err, sizeof ctx->err, "%s: %s", call, cublasGetStatusString(s));
    return HB_ERROR;
}

/* Elapsed time between the two events already recorded around one piece of work;
 * waiting on the stop event is also where a kernel's execution error surfaces. */
static int cu_wait_timed(hb_ctx *ctx, double *device_ms)
{
    cudaError_t e = cudaEventSynchronize(ctx->ev_stop);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaEventSynchronize", e);
    if (device_ms) {
        float ms = 0.0f;
        e = cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop);
        if (e != cudaSuccess)
            return cu_fail(ctx, "cudaEventElapsedTime", e);
        *device_ms = ms;
    }
    return HB_OK;
}

/* "NVIDIA driver 580.159.04 (CUDA 13.0), runtime 13.0, cuBLAS 13.1.0": the kernel
 * module's release is only in /proc, so it is left out where that is unreadable. */
static void cu_driver_string(char *out, size_t len)
{
    int drv = 0, rt = 0, bmaj = 0, bmin = 0, bpat = 0;
    char nvrm[32] = "";
    (void)cudaDriverGetVersion(&drv);
    (void)cudaRuntimeGetVersion(&rt);
    (void)cublasGetProperty(MAJOR_VERSION, &bmaj);
    (void)cublasGetProperty(MINOR_VERSION, &bmin);
    (void)cublasGetProperty(PATCH_LEVEL, &bpat);
    /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ...":
     * the release is the first word that starts with a digit. */
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) {
        char line[256];
        if (fgets(line, sizeof line, f)) {
            char *save = NULL;
            for (const char *w = strtok_r(line, " \t\n", &save); w;
                 w = strtok_r(NULL, " \t\n", &save)) {
                if (w[0] >= '0' && w[0] <= '9') {
                    snprintf(nvrm, sizeof nvrm, "%.31s", w);
                    break;
                }
            }
        }
        fclose(f);
    }
    snprintf(out, len, "NVIDIA driver %s%s(CUDA %d.%d), runtime %d.%d, cuBLAS %d.%d.%d", nvrm,
             nvrm[0] ? " " : "", drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, bmaj, bmin,
             bpat);
}

/* Vendor fp32 (non-tensor) peak: SMs x FP32 lanes per SM x 2 (FMA) x peak clock. Lanes per
 * SM from the CUDA programming guide's throughput table; 0 (unknown) for other chips. */
static double cu_fp32_peak_tflops(int dev, int major, int minor, int sms)
{
    int cc = major * 10 + minor;
    int lanes = cc == 70 || cc == 75 || cc == 80 ? 64 : cc == 86 || cc == 89 || cc >= 90 ? 128 : 0;
    int khz = 0;
    if (!lanes || cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) != cudaSuccess || khz <= 0)
        return 0;
    return (double)sms * lanes * 2.0 * khz * 1e3 / 1e12;
}

/* No driver and no device are both "0 devices" with the reason in err, so the
 * harness can say why and exit 3; any other failure is -1. */
static int cu_list_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (errlen)
        err[0] = '\0';
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        char why[256];
        cu_msg(why, sizeof why, "cudaGetDeviceCount", e);
        snprintf(err, errlen, "no CUDA device: %s%s", why,
                 e == cudaErrorInsufficientDriver ? " [no NVIDIA driver, or one older than the runtime]"
                                                  : "");
        return 0;
    }
    if (e != cudaSuccess) {
        cu_msg(err, errlen, "cudaGetDeviceCount", e);
        return -1;
    }
    char driver[128];
    cu_driver_string(driver, sizeof driver);
    for (int d = 0; d < n && d < max; ++d) {
        struct cudaDeviceProp p;
        e = cudaGetDeviceProperties(&p, d);
        if (e != cudaSuccess) {
            cu_msg(err, errlen, "cudaGetDeviceProperties", e);
            return -1;
        }
        struct hb_device_info *info = &out[d];
        memset(info, 0, sizeof *info);
        snprintf(info->name, sizeof info->name, "%.127s", p.name);
        snprintf(info->driver, sizeof info->driver, "%s", driver);
        info->n_widths = 1;
        info->widths[0].width = p.warpSize;
        info->global_mem_bytes = p.totalGlobalMem;
        info->shared_mem_per_block = (uint32_t)p.sharedMemPerBlock;
        info->fp32_peak_tflops = cu_fp32_peak_tflops(d, p.major, p.minor, p.multiProcessorCount);
    }
    return n;
}

static void cu_close(hb_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->blas)
        cublasDestroy(ctx->blas);
    if (ctx->ev_start)
        cudaEventDestroy(ctx->ev_start);
    if (ctx->ev_stop)
        cudaEventDestroy(ctx->ev_stop);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    if (ctx->nvrtc)
        dlclose(ctx->nvrtc);
    free(ctx);
}

static int cu_open(hb_ctx **out, int device, int width, char *err, size_t errlen)
{
    *out = NULL;
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        char why[256];
        cu_msg(why, sizeof why, "cudaGetDeviceProperties", e);
        snprintf(err, errlen, "no CUDA device: %s", why);
        return HB_NO_DEVICE;
    }
    if (e != cudaSuccess) {
        cu_msg(err, errlen, "cudaGetDeviceProperties", e);
        return HB_ERROR;
    }
    if (width != p.warpSize) {
        snprintf(err, errlen, "width %d not offered: %s runs %d-lane warps only", width, p.name,
                 p.warpSize);
        return HB_UNSUPPORTED;
    }
    hb_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(err, errlen, "calloc: out of memory");
        return HB_ERROR;
    }
    const char *call = "cudaSetDevice";
    if ((e = cudaSetDevice(device)) == cudaSuccess) {
        call = "cudaStreamCreateWithFlags";
        e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
    }
    if (e == cudaSuccess) {
        call = "cudaEventCreate";
        e = cudaEventCreate(&ctx->ev_start);
        if (e == cudaSuccess)
            e = cudaEventCreate(&ctx->ev_stop);
    }
    if (e != cudaSuccess) {
        cu_msg(err, errlen, call, e);
        cu_close(ctx);
        return HB_ERROR;
    }
    *out = ctx;
    return HB_OK;
}

static const char *cu_last_error(hb_ctx *ctx)
{
    return ctx->err;
}

static int cu_alloc(hb_ctx *ctx, size_t bytes, hb_buf **out)
{
    *out = NULL;
    if (ctx->sticky)
        return HB_ERROR;
    hb_buf *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(ctx->err, sizeof ctx->err, "calloc: out of memory");
        return HB_ERROR;
    }
    cudaError_t e = cudaMalloc(&b->ptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        free(b);
        return cu_fail(ctx, "cudaMalloc", e);
    }
    b->bytes = bytes;
    *out = b;
    return HB_OK;
}

static void cu_release(hb_ctx *ctx, hb_buf *buf)
{
    (void)ctx;
    if (!buf)
        return;
    (void)cudaFree(buf->ptr); /* fails harmlessly on a dead context */
    free(buf);
}

static int cu_range(hb_ctx *ctx, const char *what, const hb_buf *buf, size_t offset, size_t bytes)
{
    if (offset > buf->bytes || bytes > buf->bytes - offset) {
        snprintf(ctx->err, sizeof ctx->err, "%s: range [%zu, +%zu) outside a %zu-byte buffer", what,
                 offset, bytes, buf->bytes);
        return HB_ERROR;
    }
    return HB_OK;
}

static int cu_upload(hb_ctx *ctx, hb_buf *dst, size_t offset, const void *src, size_t bytes)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (cu_range(ctx, "upload", dst, offset, bytes) != HB_OK)
        return HB_ERROR;
    cudaError_t e = cudaMemcpyAsync((char *)dst->ptr + offset, src, bytes, cudaMemcpyHostToDevice,
                                    ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaMemcpyAsync(host to device)", e);
    if ((e = cudaStreamSynchronize(ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaStreamSynchronize", e);
    return HB_OK;
}

static int cu_download(hb_ctx *ctx, hb_buf *src, size_t offset, void *dst, size_t bytes)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (cu_range(ctx, "download", src, offset, bytes) != HB_OK)
        return HB_ERROR;
    cudaError_t e = cudaMemcpyAsync(dst, (const char *)src->ptr + offset, bytes,
                                    cudaMemcpyDeviceToHost, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaMemcpyAsync(device to host)", e);
    if ((e = cudaStreamSynchronize(ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaStreamSynchronize", e);
    return HB_OK;
}

/* Loads libnvrtc from the loader's path, else from $CUDA_HOME/lib64 or the toolkit this
 * backend was built against; 0, or -1 with ctx->err set (a SKIP: no compiler here). */
static int cu_nvrtc_open(hb_ctx *ctx)
{
    if (ctx->nvrtc)
        return 0;
    const char *home = getenv("CUDA_HOME");
    char env_lib[1024] = "";
    if (home && *home)
        snprintf(env_lib, sizeof env_lib, "%.1000s/lib64/libnvrtc.so", home);
    const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", env_lib,
                           CU_CUDA_HOME "/lib64/libnvrtc.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !ctx->nvrtc; i++)
        if (names[i][0])
            ctx->nvrtc = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!ctx->nvrtc) {
        snprintf(ctx->err, sizeof ctx->err,
                 "NVRTC not found (libnvrtc.so.13/.12 on the loader path or in $CUDA_HOME/lib64): "
                 "cannot compile CUDA sources at run time");
        return -1;
    }
    struct {
        const char *name;
        void *slot;
    } syms[] = {
        {"nvrtcCreateProgram", &ctx->rtc_create},   {"nvrtcCompileProgram", &ctx->rtc_compile},
        {"nvrtcGetProgramLogSize", &ctx->rtc_log_size}, {"nvrtcGetProgramLog", &ctx->rtc_log},
        {"nvrtcGetCUBINSize", &ctx->rtc_cubin_size}, {"nvrtcGetCUBIN", &ctx->rtc_cubin},
        {"nvrtcDestroyProgram", &ctx->rtc_destroy},  {"nvrtcGetErrorString", &ctx->rtc_errstr},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(ctx->nvrtc, syms[i].name);
        if (!f) {
            snprintf(ctx->err, sizeof ctx->err, "NVRTC not usable: dlsym(%s): %.300s", syms[i].name,
                     dlerror());
            dlclose(ctx->nvrtc);
            ctx->nvrtc = NULL;
            return -1;
        }
        /* POSIX dlsym returns object pointers; these are functions by the library's ABI. */
        memcpy(syms[i].slot, &f, sizeof f);
    }
    return 0;
}

static char *cu_read_file(hb_ctx *ctx, const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text) {
        rewind(f);
        if (fread(text, 1, (size_t)n, f) == (size_t)n) {
            text[n] = '\0';
        } else {
            free(text);
            text = NULL;
        }
    }
    if (!text)
        snprintf(ctx->err, sizeof ctx->err, "read %.400s: %s", path, f ? "short read" : strerror(errno));
    if (f)
        fclose(f);
    return text;
}

/* Compiles spec's source with NVRTC to a cubin for the current device (sm_XY: SASS only, so
 * nothing is JIT-compiled at load). The CUDA include folder resolves the kernels'
 * #include <cuda_runtime.h> (NVRTC has no copy of it) and the source's folder its own
 * headers. A compile error is the user's to fix: HB_ERROR with NVRTC's first error. */
static int cu_nvrtc_compile(hb_ctx *ctx, const struct hb_kernel_spec *spec, int major, int minor,
                            char **image)
{
    *image = NULL;
    if (cu_nvrtc_open(ctx) != 0)
        return HB_UNSUPPORTED;
    char *src = cu_read_file(ctx, spec->source_path);
    if (!src)
        return HB_ERROR;
    /* $CUDA_HOME when it holds the headers, else the toolkit this backend was built with. */
    const char *home = getenv("CUDA_HOME");
    char arch[48], probe[1100], inc_cuda[1100], inc_src[4200];
    snprintf(probe, sizeof probe, "%.1000s/include/cuda_runtime.h", home ? home : "");
    int use_env = home && *home && access(probe, R_OK) == 0;
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    snprintf(inc_cuda, sizeof inc_cuda, "-I%.1000s/include", use_env ? home : CU_CUDA_HOME);
    const char *src_path = spec->source_path, *slash = strrchr(src_path, '/');
    snprintf(inc_src, sizeof inc_src, "-I%.*s", slash > src_path ? (int)(slash - src_path) : 1,
             slash ? src_path : ".");
    const char *opts[] = {arch, "-default-device", "--std=c++17", "-lineinfo", inc_cuda, inc_src};
    nvrtcProgram prog = NULL;
    const char *call = "nvrtcCreateProgram";
    nvrtcResult r = ctx->rtc_create(&prog, src, spec->source_path, 0, NULL, NULL);
    if (r == NVRTC_SUCCESS) {
        call = "nvrtcCompileProgram";
        r = ctx->rtc_compile(prog, (int)(sizeof opts / sizeof opts[0]), opts);
    }
    size_t n = 0;
    if (r == NVRTC_ERROR_COMPILATION && ctx->rtc_log_size(prog, &n) == NVRTC_SUCCESS && n > 1) {
        char *log = malloc(n), line[400] = "";
        if (log && ctx->rtc_log(prog, log) == NVRTC_SUCCESS)
            rtc_first_error(log, line, sizeof line);
        free(log);
        snprintf(ctx->err, sizeof ctx->err, "does not compile with NVRTC (%s): %s", arch + 19, line);
    } else if (r == NVRTC_SUCCESS) {
        call = "nvrtcGetCUBIN";
        if ((r = ctx->rtc_cubin_size(prog, &n)) == NVRTC_SUCCESS && !(*image = malloc(n)))
            snprintf(ctx->err, sizeof ctx->err, "malloc(%zu-byte cubin) failed", n);
        else if (r == NVRTC_SUCCESS && (r = ctx->rtc_cubin(prog, *image)) != NVRTC_SUCCESS)
            free(*image), *image = NULL;
    }
    if (r != NVRTC_SUCCESS && r != NVRTC_ERROR_COMPILATION)
        snprintf(ctx->err, sizeof ctx->err, "%s(%.300s): %s", call, spec->source_path,
                 ctx->rtc_errstr(r));
    if (prog)
        ctx->rtc_destroy(&prog);
    free(src);
    return *image ? HB_OK : HB_ERROR;
}

/* The fatbin is build_dir/kernels/cuda/<stem of source_path>.fatbin while it is at least as
 * new as the source; otherwise (a user's own kernel) the source is compiled with NVRTC. */
static int cu_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out)
{
    *out = NULL;
    if (ctx->sticky)
        return HB_ERROR;
    if (strcmp(spec->lang, "cuda") != 0) {
        snprintf(ctx->err, sizeof ctx->err, "cuda backend runs lang cuda, not %s", spec->lang);
        return HB_UNSUPPORTED;
    }
    char path[4096], *image = NULL;
    int current = rtc_prebuilt(spec, "cuda", ".fatbin", path, sizeof path, ctx->err, sizeof ctx->err);
    if (current < 0)
        return HB_ERROR;
    if (!current) {
        int dev = 0, major = 0, minor = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        if (e != cudaSuccess)
            return cu_fail(ctx, "cudaDeviceGetAttribute(compute capability)", e);
        int rc = cu_nvrtc_compile(ctx, spec, major, minor, &image);
        if (rc != HB_OK)
            return rc;
        snprintf(path, sizeof path, "%.4000s (NVRTC)", spec->source_path);
    }
    hb_kern *k = calloc(1, sizeof *k);
    if (!k) {
        free(image);
        snprintf(ctx->err, sizeof ctx->err, "calloc: out of memory");
        return HB_ERROR;
    }
    /* With lazy loading (the default) a missing image shows up at GetKernel. */
    const char *call = image ? "cudaLibraryLoadData" : "cudaLibraryLoadFromFile";
    cudaError_t e = image ? cudaLibraryLoadData(&k->lib, image, NULL, NULL, 0, NULL, NULL, 0)
                          : cudaLibraryLoadFromFile(&k->lib, path, NULL, NULL, 0, NULL, NULL, 0);
    free(image); /* the driver keeps its own copy (no CU_LIBRARY_BINARY_IS_PRESERVED) */
    if (e == cudaSuccess) {
        call = "cudaLibraryGetKernel";
        e = cudaLibraryGetKernel(&k->fn, k->lib, spec->entry);
        if (e != cudaSuccess)
            (void)cudaLibraryUnload(k->lib);
    }
    if (e != cudaSuccess) {
        free(k);
        /* A fatbin with neither SASS nor PTX usable here is a build choice
         * (CUDA_ARCHS), not a kernel bug: skip, with the reason. */
        if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion) {
            char why[256];
            cu_msg(why, sizeof why, call, e);
            snprintf(ctx->err, sizeof ctx->err, "%.200s: %.250s (rebuild with CUDA_ARCHS)", path, why);
            (void)cudaGetLastError();
            return HB_UNSUPPORTED;
        }
        int rc = cu_fail(ctx, call, e);
        size_t used = strlen(ctx->err);
        snprintf(ctx->err + used, sizeof ctx->err - used, " [entry %.60s in %.300s]", spec->entry,
                 path);
        return rc;
    }
    memcpy(k->block, spec->block, sizeof k->block);
    *out = k;
    return HB_OK;
}

static void cu_unload(hb_ctx *ctx, hb_kern *kern)
{
    (void)ctx;
    if (!kern)
        return;
    (void)cudaLibraryUnload(kern->lib);
    free(kern);
}

static int cu_launch(hb_ctx *ctx, hb_kern *kern, const unsigned grid[3], const struct hb_args *args,
                     double *device_ms)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (args->n_bufs < 0 || args->n_bufs > HB_MAX_BUF_ARGS || args->n_ints < 0 ||
        args->n_ints > HB_MAX_INT_ARGS) {
        snprintf(ctx->err, sizeof ctx->err, "launch: %d buffers and %d integers is out of range",
                 args->n_bufs, args->n_ints);
        return HB_ERROR;
    }
    if (device_ms)
        *device_ms = 0.0;
    /* An empty grid (M or N = 0) is a correct launch of nothing; CUDA would call
     * it an invalid configuration. */
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return HB_OK;
    void *ptrs[HB_MAX_BUF_ARGS];
    int32_t ints[HB_MAX_INT_ARGS];
    void *params[HB_MAX_BUF_ARGS + HB_MAX_INT_ARGS];
    int np = 0;
    for (int i = 0; i < args->n_bufs; ++i) {
        ptrs[i] = (char *)args->bufs[i]->ptr + args->offsets[i];
        params[np++] = &ptrs[i];
    }
    for (int i = 0; i < args->n_ints; ++i) {
        ints[i] = args->ints[i];
        params[np++] = &ints[i];
    }
    dim3 g = {grid[0], grid[1], grid[2]};
    dim3 b = {kern->block[0], kern->block[1], kern->block[2]};
    cudaError_t e = cudaEventRecord(ctx->ev_start, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    if ((e = cudaLaunchKernel((const void *)kern->fn, g, b, params, 0, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaLaunchKernel", e);
    if ((e = cudaEventRecord(ctx->ev_stop, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    return cu_wait_timed(ctx, device_ms);
}

/* Row-major C = A * B is column-major C^T = B^T * A^T: cuBLAS multiplies the
 * column-major N x K matrix B by the K x M matrix A with no transposes. Default math
 * mode: full fp32, no TF32 (that needs CUBLAS_TF32_TENSOR_OP_MATH). */
static int cu_vendor_sgemm(hb_ctx *ctx, const struct hb_args *args, double *device_ms)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (args->n_bufs != 3 || args->n_ints != 3) {
        snprintf(ctx->err, sizeof ctx->err, "vendor_sgemm: expects the sgemm ABI (3 buffers, 3 ints)");
        return HB_ERROR;
    }
    if (device_ms)
        *device_ms = 0.0;
    int M = args->ints[0], N = args->ints[1], K = args->ints[2];
    if (M == 0 || N == 0)
        return HB_OK;
    cublasStatus_t s;
    if (!ctx->blas) {
        if ((s = cublasCreate(&ctx->blas)) != CUBLAS_STATUS_SUCCESS) {
            ctx->blas = NULL;
            return cu_blas_fail(ctx, "cublasCreate", s);
        }
        if ((s = cublasSetStream(ctx->blas, ctx->stream)) != CUBLAS_STATUS_SUCCESS)
            return cu_blas_fail(ctx, "cublasSetStream", s);
        if ((s = cublasSetMathMode(ctx->blas, CUBLAS_DEFAULT_MATH)) != CUBLAS_STATUS_SUCCESS)
            return cu_blas_fail(ctx, "cublasSetMathMode", s);
    }
    const float *A = (const float *)((const char *)args->bufs[0]->ptr + args->offsets[0]);
    const float *B = (const float *)((const char *)args->bufs[1]->ptr + args->offsets[1]);
    float *C = (float *)((char *)args->bufs[2]->ptr + args->offsets[2]);
    const float one = 1.0f, zero = 0.0f;
    cudaError_t e = cudaEventRecord(ctx->ev_start, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    /* K = 0: leading dimensions must still be >= 1; beta = 0 writes zeros. */
    s = cublasSgemm(ctx->blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K > 0 ? K : 1,
                    &zero, C, N);
    if (s != CUBLAS_STATUS_SUCCESS)
        return cu_blas_fail(ctx, "cublasSgemm", s);
    if ((e = cudaEventRecord(ctx->ev_stop, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    return cu_wait_timed(ctx, device_ms);
}

static int cu_copy(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off,
                   size_t bytes, double *device_ms)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (cu_range(ctx, "copy destination", dst, dst_off, bytes) != HB_OK ||
        cu_range(ctx, "copy source", src, src_off, bytes) != HB_OK)
        return HB_ERROR;
    cudaError_t e = cudaEventRecord(ctx->ev_start, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    e = cudaMemcpyAsync((char *)dst->ptr + dst_off, (const char *)src->ptr + src_off, bytes,
                        cudaMemcpyDeviceToDevice, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaMemcpyAsync(device to device)", e);
    if ((e = cudaEventRecord(ctx->ev_stop, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    return cu_wait_timed(ctx, device_ms);
}

static int cu_kernel_info(hb_ctx *ctx, hb_kern *kern, struct hb_kernel_info *out)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaGetDevice", e);
    return cu_kernel_figures((const void *)kern->fn, dev, kern->block, 0, out, ctx->err, sizeof ctx->err);
}

static const struct hb_backend cu_backend = {
    .abi = HB_BACKEND_ABI,
    .name = "cuda",
    .langs = "cuda",
    .list_devices = cu_list_devices,
    .open = cu_open,
    .close = cu_close,
    .last_error = cu_last_error,
    .alloc = cu_alloc,
    .release = cu_release,
    .upload = cu_upload,
    .download = cu_download,
    .load = cu_load,
    .unload = cu_unload,
    .launch = cu_launch,
    .vendor_sgemm = cu_vendor_sgemm,
    .vendor_name = "cublas",
    .copy = cu_copy,
    .kernel_info = cu_kernel_info,
};

const struct hb_backend *hb_backend_entry(void)
{
    return &cu_backend;
}
