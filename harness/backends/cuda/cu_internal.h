/* SPDX-License-Identifier: MIT */
/* cu_internal.h: what the CUDA backend's files share: cu_backend.c (devices, context, memory,
 * launches, cuBLAS, copies) and cu_module.c (loading kernels: prebuilt fatbins, or users'
 * sources compiled at run time, entries found by name as written). Private to this folder. */
#ifndef CU_INTERNAL_H
#define CU_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include "backend.h"

#define CU_MAX_PARAMS 64

struct hb_ctx {
    cudaStream_t stream; /* every call runs here and waits for it, so calls never overlap */
    cudaEvent_t ev_start, ev_stop;
    cublasHandle_t blas; /* created on first vendor_sgemm: it costs time and memory */
    int sticky;          /* the context is dead: every later call repeats err */
    char err[2048];      /* long enough for a compiler's first error and its log's whole path */
    /* NVRTC, dlopen'ed on the first run-time compile without nvcc: only users' own kernels
     * need it, and a machine may have the driver and cudart without the toolkit. */
    void *nvrtc;
    nvrtcResult (*rtc_create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                              const char *const *);
    nvrtcResult (*rtc_compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*rtc_log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*rtc_log)(nvrtcProgram, char *);
    nvrtcResult (*rtc_cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*rtc_cubin)(nvrtcProgram, char *);
    nvrtcResult (*rtc_destroy)(nvrtcProgram *);
    const char *(*rtc_errstr)(nvrtcResult);
    nvrtcResult (*rtc_add_name)(nvrtcProgram, const char *);
    nvrtcResult (*rtc_lowered)(nvrtcProgram, const char *, const char **);
};

struct hb_buf {
    void *ptr;
    size_t bytes;
};

struct hb_kern {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    unsigned block[3];
    unsigned shared_bytes; /* dynamic shared memory per block */
    int n_params;          /* the kernel's own parameter count, -1 when the runtime cannot say */
    size_t param_size[CU_MAX_PARAMS];
    char origin[2048]; /* which binary runs: path, or source and compiler */
};

/* "call: cudaErrorX (text)" into dst. */
void cu_msg(char *dst, size_t len, const char *call, cudaError_t e);
/* Records a failed call in ctx->err (and a poisoned context as sticky); returns HB_ERROR. */
int cu_fail(hb_ctx *ctx, const char *call, cudaError_t e);

/* cu_module.c */
int cu_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out);
void cu_unload(hb_ctx *ctx, hb_kern *kern);

#endif
