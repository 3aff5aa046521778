/* SPDX-License-Identifier: MIT */
/* cu_module.c: loading a CUDA kernel. A shipped kernel runs from the fatbin make built for
 * it; a user's source is compiled at run time as the user's own build would compile it: with
 * nvcc for this device's architecture (host headers, `uint` and friends work), NVRTC only
 * where no nvcc is found. The entry is looked up as written: an extern "C" name, a C++ name,
 * or a template-id such as `gemm<128, 128, 8, 8, 8>` (instantiated by a wrapper that includes
 * the source unchanged). Each kernel records which binary runs, for the report. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cu_internal.h"
#include "cu_nvcc.h"
#include "entry_name.h"
#include "rtc.h"

/* libstdc++'s demangler, C-callable: kernels found by enumeration have mangled names. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

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
        {"nvrtcCreateProgram", &ctx->rtc_create},       {"nvrtcCompileProgram", &ctx->rtc_compile},
        {"nvrtcGetProgramLogSize", &ctx->rtc_log_size}, {"nvrtcGetProgramLog", &ctx->rtc_log},
        {"nvrtcGetCUBINSize", &ctx->rtc_cubin_size},    {"nvrtcGetCUBIN", &ctx->rtc_cubin},
        {"nvrtcDestroyProgram", &ctx->rtc_destroy},     {"nvrtcGetErrorString", &ctx->rtc_errstr},
        {"nvrtcAddNameExpression", &ctx->rtc_add_name}, {"nvrtcGetLoweredName", &ctx->rtc_lowered},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(ctx->nvrtc, syms[i].name);
        if (!f) {
            snprintf(ctx->err, sizeof ctx->err, "NVRTC not usable: dlsym(%s): %.300s", syms[i].name, dlerror());
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
 * nothing is JIT-compiled at load), where no nvcc is found. The CUDA include folders resolve
 * <cuda_runtime.h> and CUDA 13's cuda/std headers (include/cccl), the source's folder its own
 * headers; NVRTC has no host headers (<cstdio>...), which nvcc would give. The entry is a name
 * expression, so a template-id comes back as the symbol to load (lowered). A compile error is
 * the user's to fix: HB_ERROR with NVRTC's first error. */
static int cu_nvrtc_compile(hb_ctx *ctx, const struct hb_kernel_spec *spec, int major, int minor, char **image,
                            char *lowered, size_t lowered_len)
{
    *image = NULL;
    if (cu_nvrtc_open(ctx) != 0)
        return HB_UNSUPPORTED;
    char *src = cu_read_file(ctx, spec->source_path);
    if (!src)
        return HB_ERROR;
    /* $CUDA_HOME when it holds the headers, else the toolkit this backend was built with. */
    const char *home = getenv("CUDA_HOME");
    char arch[48], probe[1100], inc_cuda[1100], inc_cccl[1100], inc_src[4200];
    snprintf(probe, sizeof probe, "%.1000s/include/cuda_runtime.h", home ? home : "");
    int use_env = home && *home && access(probe, R_OK) == 0;
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    snprintf(inc_cuda, sizeof inc_cuda, "-I%.1000s/include", use_env ? home : CU_CUDA_HOME);
    snprintf(inc_cccl, sizeof inc_cccl, "-I%.1000s/include/cccl", use_env ? home : CU_CUDA_HOME);
    const char *src_path = spec->source_path, *slash = strrchr(src_path, '/');
    snprintf(inc_src, sizeof inc_src, "-I%.*s", slash > src_path ? (int)(slash - src_path) : 1, slash ? src_path : ".");
    char user_words[16384], *opts[CU_NVCC_WORDS] = {arch, "-default-device", "--std=c++17", "-lineinfo"};
    int n_opts = 4, user = rtc_user_flags(spec, user_words, sizeof user_words, opts + n_opts, CU_NVCC_WORDS - 8);
    if (user < 0) {
        free(src);
        return snprintf(ctx->err, sizeof ctx->err, "%s: too many includes and defines", spec->name), HB_ERROR;
    }
    n_opts += user;
    opts[n_opts++] = inc_cuda, opts[n_opts++] = inc_cccl, opts[n_opts++] = inc_src;
    nvrtcProgram prog = NULL;
    const char *call = "nvrtcCreateProgram";
    nvrtcResult r = ctx->rtc_create(&prog, src, spec->source_path, 0, NULL, NULL);
    if (r == NVRTC_SUCCESS) {
        call = "nvrtcAddNameExpression";
        r = ctx->rtc_add_name(prog, spec->entry);
    }
    if (r == NVRTC_SUCCESS) {
        call = "nvrtcCompileProgram";
        r = ctx->rtc_compile(prog, n_opts, (const char *const *)opts);
    }
    const char *low = NULL;
    if (r == NVRTC_SUCCESS && ctx->rtc_lowered(prog, spec->entry, &low) == NVRTC_SUCCESS && low)
        snprintf(lowered, lowered_len, "%s", low);
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
        snprintf(ctx->err, sizeof ctx->err, "%s(%.300s): %s", call, spec->source_path, ctx->rtc_errstr(r));
    if (prog)
        ctx->rtc_destroy(&prog);
    free(src);
    return *image ? HB_OK : HB_ERROR;
}

/* The entry by its name as written, looking through every kernel of the library when it is not
 * an extern "C" symbol; on failure ctx->err lists what the library holds. */
static int cu_find_entry(hb_ctx *ctx, hb_kern *k, const char *entry, const char *lowered)
{
    if (cudaLibraryGetKernel(&k->fn, k->lib, lowered[0] ? lowered : entry) == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    unsigned count = 0;
    cudaKernel_t all[256];
    if (cudaLibraryGetKernelCount(&count, k->lib) != cudaSuccess || count > 256 ||
        cudaLibraryEnumerateKernels(all, count, k->lib) != cudaSuccess)
        count = 0;
    char want[512], have[512], list[400] = "";
    entry_plain_name(entry, want, sizeof want);
    for (unsigned i = 0; i < count; i++) {
        const char *name = NULL;
        if (cudaFuncGetName(&name, (const void *)all[i]) != cudaSuccess || !name)
            continue;
        int status = -1;
        char *readable = __cxa_demangle(name, NULL, NULL, &status);
        entry_plain_name(status == 0 ? readable : name, have, sizeof have);
        free(readable);
        if (!strcmp(have, want)) {
            k->fn = all[i];
            return 0;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%.100s", i ? ", " : "", have);
    }
    (void)cudaGetLastError();
    snprintf(ctx->err, sizeof ctx->err, "entry %.200s not found; the module holds: %.300s", entry,
             count ? list : "(no kernels listed)");
    return -1;
}

/* The kernel's own parameter sizes (CUDA 12.4+), so a declared argument list can be checked
 * against them and a 64-bit size parameter gets 8 bytes. */
static void cu_param_sizes(hb_kern *k)
{
    k->n_params = 0;
    for (size_t i = 0; i < CU_MAX_PARAMS; i++) {
        size_t offset = 0, size = 0;
        if (cudaFuncGetParamInfo((const void *)k->fn, i, &offset, &size) != cudaSuccess)
            break;
        k->param_size[k->n_params++] = size;
    }
    (void)cudaGetLastError();
    if (!k->n_params)
        k->n_params = -1;
}
/* This device's compute capability, for a run-time compile. */
static int cu_arch(hb_ctx *ctx, int *major, int *minor)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, dev);
    return e == cudaSuccess ? HB_OK : cu_fail(ctx, "cudaDeviceGetAttribute(compute capability)", e);
}

/* The binary to load: the prebuilt fatbin of a shipped kernel (path), or a run-time compile
 * (a cubin file from nvcc, or an NVRTC image with the entry's lowered name). */
static int cu_binary(hb_ctx *ctx, const struct hb_kernel_spec *spec, char *path, size_t len, char **image,
                     char *lowered, size_t lowered_len, char *origin, size_t origin_len)
{
    int current = rtc_prebuilt(spec, "cuda", ".fatbin", path, len, ctx->err, sizeof ctx->err);
    if (current < 0)
        return HB_ERROR;
    if (current) {
        rtc_describe(spec, path, "built by make", "nvcc -fatbin (backend.mk)", origin, origin_len);
        return HB_OK;
    }
    int major = 0, minor = 0;
    if (cu_arch(ctx, &major, &minor) != HB_OK)
        return HB_ERROR;
    char nvcc[1100], sm[32];
    snprintf(sm, sizeof sm, "sm_%d%d", major, minor);
    if (cu_nvcc_find(nvcc, sizeof nvcc))
        return cu_nvcc_compile(spec, nvcc, sm, path, len, origin, origin_len, ctx->err, sizeof ctx->err);
    char tool[4096], words[16384], *user[CU_NVCC_WORDS];
    int n = snprintf(tool, sizeof tool, "NVRTC for sm_%d%d (no nvcc found)", major, minor);
    int n_user = rtc_user_flags(spec, words, sizeof words, user, CU_NVCC_WORDS);
    if (n_user > 0) {
        snprintf(tool + n, sizeof tool - (size_t)n, " with ");
        rtc_join(user, n_user, tool + n + 6, sizeof tool - (size_t)n - 6);
    }
    rtc_describe(spec, "(in memory)", "built at run time", tool, origin, origin_len);
    return cu_nvrtc_compile(ctx, spec, major, minor, image, lowered, lowered_len);
}

/* A fatbin with neither SASS nor PTX usable here is a build choice (CUDA_ARCHS), not a
 * kernel bug: a skip with the reason. Anything else is an error naming the entry. */
static int cu_load_failed(hb_ctx *ctx, const char *call, cudaError_t e, const char *entry, const char *path)
{
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion) {
        char why[256];
        cu_msg(why, sizeof why, call, e);
        snprintf(ctx->err, sizeof ctx->err, "%.200s: %.250s (rebuild with CUDA_ARCHS)", path, why);
        (void)cudaGetLastError();
        return HB_UNSUPPORTED;
    }
    int rc = cu_fail(ctx, call, e);
    size_t used = strlen(ctx->err);
    snprintf(ctx->err + used, sizeof ctx->err - used, " [entry %.60s in %.300s]", entry, path);
    return rc;
}

int cu_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out)
{
    *out = NULL;
    if (ctx->sticky)
        return HB_ERROR;
    if (strcmp(spec->lang, "cuda") != 0) {
        snprintf(ctx->err, sizeof ctx->err, "cuda backend runs lang cuda, not %s", spec->lang);
        return HB_UNSUPPORTED;
    }
    hb_kern *k = calloc(1, sizeof *k);
    char path[4096], *image = NULL, lowered[1024] = "";
    if (!k)
        return snprintf(ctx->err, sizeof ctx->err, "calloc: out of memory"), HB_ERROR;
    int rc = cu_binary(ctx, spec, path, sizeof path, &image, lowered, sizeof lowered, k->origin, sizeof k->origin);
    if (rc != HB_OK) {
        free(k);
        return rc;
    }
    /* With lazy loading (the default) a missing image shows up at GetKernel. */
    const char *call = image ? "cudaLibraryLoadData" : "cudaLibraryLoadFromFile";
    cudaError_t e = image ? cudaLibraryLoadData(&k->lib, image, NULL, NULL, 0, NULL, NULL, 0)
                          : cudaLibraryLoadFromFile(&k->lib, path, NULL, NULL, 0, NULL, NULL, 0);
    free(image); /* the driver keeps its own copy (no CU_LIBRARY_BINARY_IS_PRESERVED) */
    if (e != cudaSuccess) {
        free(k);
        return cu_load_failed(ctx, call, e, spec->entry, path);
    }
    if (cu_find_entry(ctx, k, spec->entry, lowered)) {
        (void)cudaLibraryUnload(k->lib);
        free(k);
        return HB_ERROR;
    }
    cu_param_sizes(k);
    memcpy(k->block, spec->block, sizeof k->block);
    k->shared_bytes = spec->shared_bytes;
    *out = k;
    return HB_OK;
}

void cu_unload(hb_ctx *ctx, hb_kern *kern)
{
    (void)ctx;
    if (!kern)
        return;
    (void)cudaLibraryUnload(kern->lib);
    free(kern);
}
