/* SPDX-License-Identifier: MIT */
/* cu_backend.c: the CUDA backend (hb_cuda.so): devices, context, memory, launches with the
 * kernel's declared argument list (loading kernels is cu_module.c's), timed with events, and
 * cuBLAS SGEMM (full fp32) and a device-to-device copy as yardsticks. It offers width 32 only,
 * never resets the device, and never exits: a dead context is reported as a sticky error. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cu_info.h"
#include "cu_internal.h"
#include "hbc.h"

void cu_msg(char *dst, size_t len, const char *call, cudaError_t e)
{
    snprintf(dst, len, "%s: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* Records a failed call. An error that survives clearing the last error and a
 * device sync has poisoned the context (illegal address, trap...): from then on
 * every call fails with it, and the core restarts the child. */
int cu_fail(hb_ctx *ctx, const char *call, cudaError_t e)
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
            for (const char *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
                if (w[0] >= '0' && w[0] <= '9') {
                    snprintf(nvrm, sizeof nvrm, "%.31s", w);
                    break;
                }
            }
        }
        fclose(f);
    }
    snprintf(out, len, "NVIDIA driver %s%s(CUDA %d.%d), runtime %d.%d, cuBLAS %d.%d.%d", nvrm, nvrm[0] ? " " : "",
             drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, bmaj, bmin, bpat);
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
                 e == cudaErrorInsufficientDriver ? " [no NVIDIA driver, or one older than the runtime]" : "");
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
        snprintf(err, errlen, "width %d not offered: %s runs %d-lane warps only", width, p.name, p.warpSize);
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

static const char *cu_last_error(hb_ctx *ctx) { return ctx->err; }

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
    return hbc_range_ok(buf->bytes, offset, bytes, what, ctx->err, sizeof ctx->err) ? HB_OK : HB_ERROR;
}

static int cu_upload(hb_ctx *ctx, hb_buf *dst, size_t offset, const void *src, size_t bytes)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (cu_range(ctx, "upload", dst, offset, bytes) != HB_OK)
        return HB_ERROR;
    cudaError_t e = cudaMemcpyAsync((char *)dst->ptr + offset, src, bytes, cudaMemcpyHostToDevice, ctx->stream);
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
    cudaError_t e = cudaMemcpyAsync(dst, (const char *)src->ptr + offset, bytes, cudaMemcpyDeviceToHost, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaMemcpyAsync(device to host)", e);
    if ((e = cudaStreamSynchronize(ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaStreamSynchronize", e);
    return HB_OK;
}

/* Page-locked: a copy from it goes straight to the device, where one from pageable memory
 * is first copied by the driver into a staging buffer of its own (on the H200 the standard
 * tier's uploads took 6.6 s summed over its workers from pageable images). */
static void *cu_host_alloc(hb_ctx *ctx, size_t bytes)
{
    void *p = NULL;
    if (ctx->sticky || cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess)
        return NULL;
    return p;
}

static void cu_host_free(hb_ctx *ctx, void *p)
{
    (void)ctx;
    (void)cudaFreeHost(p); /* fails harmlessly on a dead context */
}

/* Loads libnvrtc from the loader's path, else from $CUDA_HOME/lib64 or the toolkit this
 * backend was built against; 0, or -1 with ctx->err set (a SKIP: no compiler here). */
/* One launch argument's bytes, by its declared kind and the kernel's own parameter size where
 * the runtime reports it: a buffer is a device pointer, an integer widens (sign-extended) to a
 * 64-bit parameter, a float to a double. */
static int cu_one_arg(hb_ctx *ctx, const hb_kern *k, const struct hb_args *a, int i, unsigned char *slot)
{
    struct hb_param p = a->params[i];
    size_t want = k->n_params > 0          ? k->param_size[i]
                  : p.kind == HB_PARAM_BUF ? sizeof(void *)
                  : p.kind == HB_PARAM_I64 ? 8
                                           : 4;
    int wide_ok = p.kind == HB_PARAM_I64 ? want == 8 : want == 4 || want == 8; /* n:u64 is never narrowed */
    if (p.kind == HB_PARAM_BUF && p.index < a->n_bufs && want == sizeof(void *)) {
        void *ptr = (char *)a->bufs[p.index]->ptr + a->offsets[p.index];
        memcpy(slot, &ptr, sizeof ptr);
    } else if ((p.kind == HB_PARAM_I32 || p.kind == HB_PARAM_I64) && p.index < a->n_ints && wide_ok) {
        int64_t wide = a->ints[p.index];
        int32_t narrow = a->ints[p.index];
        memcpy(slot, want == 8 ? (void *)&wide : (void *)&narrow, want);
    } else if (p.kind == HB_PARAM_F32 && p.index < a->n_floats && (want == 4 || want == 8)) {
        double wide = a->floats[p.index];
        float narrow = a->floats[p.index];
        memcpy(slot, want == 8 ? (void *)&wide : (void *)&narrow, want);
    } else {
        snprintf(ctx->err, sizeof ctx->err,
                 "launch: argument %d (kind %d) does not fit the kernel's %zu-byte "
                 "parameter %d: check the manifest's args",
                 i, p.kind, want, i);
        return HB_ERROR;
    }
    return HB_OK;
}

/* The kernel's parameter list: in the declared order (ABI 2), else buffers then integers. */
static int cu_marshal(hb_ctx *ctx, const hb_kern *k, const struct hb_args *a, unsigned char store[][8], void **params)
{
    struct hb_args legacy;
    if (a->n_params <= 0) {
        legacy = *a;
        legacy.n_params = 0;
        for (int i = 0; i < a->n_bufs; i++)
            legacy.params[legacy.n_params++] = (struct hb_param){HB_PARAM_BUF, (unsigned char)i};
        for (int i = 0; i < a->n_ints; i++)
            legacy.params[legacy.n_params++] = (struct hb_param){HB_PARAM_I32, (unsigned char)i};
        a = &legacy;
    }
    if (a->n_params > HB_MAX_PARAMS || (k->n_params >= 0 && k->n_params != a->n_params)) {
        snprintf(ctx->err, sizeof ctx->err, "launch: the kernel takes %d parameters, its argument list has %d",
                 k->n_params, a->n_params);
        return HB_ERROR;
    }
    for (int i = 0; i < a->n_params; i++) {
        if (cu_one_arg(ctx, k, a, i, store[i]) != HB_OK)
            return HB_ERROR;
        params[i] = store[i];
    }
    return HB_OK;
}

static int cu_launch(hb_ctx *ctx, hb_kern *kern, const unsigned grid[3], const struct hb_args *args, double *device_ms)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (args->n_bufs < 0 || args->n_bufs > HB_MAX_BUF_ARGS || args->n_ints < 0 || args->n_ints > HB_MAX_INT_ARGS) {
        snprintf(ctx->err, sizeof ctx->err, "launch: %d buffers and %d integers is out of range", args->n_bufs,
                 args->n_ints);
        return HB_ERROR;
    }
    if (device_ms)
        *device_ms = 0.0;
    /* An empty grid (M or N = 0) is a correct launch of nothing; CUDA would call
     * it an invalid configuration. */
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return HB_OK;
    unsigned char store[HB_MAX_PARAMS][8];
    void *params[HB_MAX_PARAMS];
    if (cu_marshal(ctx, kern, args, store, params) != HB_OK)
        return HB_ERROR;
    dim3 g = {grid[0], grid[1], grid[2]};
    dim3 b = {kern->block[0], kern->block[1], kern->block[2]};
    cudaError_t e;
    if (kern->shared_bytes > 48 * 1024 &&
        (e = cudaFuncSetAttribute((const void *)kern->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)kern->shared_bytes)) != cudaSuccess)
        return cu_fail(ctx, "cudaFuncSetAttribute(dynamic shared memory)", e);
    if ((e = cudaEventRecord(ctx->ev_start, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    e = cudaLaunchKernel((const void *)kern->fn, g, b, params, kern->shared_bytes, ctx->stream);
    if (e != cudaSuccess)
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
    s = cublasSgemm(ctx->blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K > 0 ? K : 1, &zero, C, N);
    if (s != CUBLAS_STATUS_SUCCESS)
        return cu_blas_fail(ctx, "cublasSgemm", s);
    if ((e = cudaEventRecord(ctx->ev_stop, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    return cu_wait_timed(ctx, device_ms);
}

static int cu_copy(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes,
                   double *device_ms)
{
    if (ctx->sticky)
        return HB_ERROR;
    if (cu_range(ctx, "copy destination", dst, dst_off, bytes) != HB_OK ||
        cu_range(ctx, "copy source", src, src_off, bytes) != HB_OK)
        return HB_ERROR;
    cudaError_t e = cudaEventRecord(ctx->ev_start, ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    e = cudaMemcpyAsync((char *)dst->ptr + dst_off, (const char *)src->ptr + src_off, bytes, cudaMemcpyDeviceToDevice,
                        ctx->stream);
    if (e != cudaSuccess)
        return cu_fail(ctx, "cudaMemcpyAsync(device to device)", e);
    if ((e = cudaEventRecord(ctx->ev_stop, ctx->stream)) != cudaSuccess)
        return cu_fail(ctx, "cudaEventRecord", e);
    return cu_wait_timed(ctx, device_ms);
}

static const char *cu_kernel_origin(hb_ctx *ctx, hb_kern *kern)
{
    (void)ctx;
    return kern ? kern->origin : NULL;
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
    .caps = HB_CAP_RAW_POINTERS,
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
    .kernel_origin = cu_kernel_origin,
    .kernel_info = cu_kernel_info,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
};

/* Before any call into the driver, which reads the setting when it makes a context. */
const struct hb_backend *hb_backend_entry(void)
{
    hbc_one_work_queue();
    return &cu_backend;
}
