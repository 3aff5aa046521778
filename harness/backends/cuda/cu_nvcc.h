/* SPDX-License-Identifier: MIT */
/* cu_nvcc.h: the CUDA backend's run-time compile of a user's source with nvcc into the cache
 * (rtc.h), with no CUDA call, so it builds with no GPU: in hb_cuda.so (cu_module.c) and in
 * cuda-entry (cu_entry_main.c), which compiles a source as the backend would for a given
 * architecture. */
#ifndef CU_NVCC_H
#define CU_NVCC_H

#include <stddef.h>

#include "backend.h"

/* Words of a run-time compile's command: nvcc's or NVRTC's own, and a manifest's -I and -D. */
#define CU_NVCC_WORDS 48

/* The nvcc next to the CUDA this backend uses ($CUDA_HOME, else the build's CU_CUDA_HOME),
 * into buf, or NULL when there is none. */
const char *cu_nvcc_find(char *buf, size_t len);

/* Compiles spec's source with nvcc into the run-time cache: a cubin for sm (e.g. "sm_90"),
 * the source's own include folders and macros first, the user's warnings shown in the log
 * but not fatal; named by what the build reads, headers included (rtc_cache_lookup). obj
 * receives the cubin's path, origin the report's line on it. HB_OK, or HB_ERROR with err
 * (the compiler's first error and its log, or why it could not run). */
int cu_nvcc_compile(const struct hb_kernel_spec *spec, const char *nvcc, const char *sm, char *obj, size_t obj_len,
                    char *origin, size_t origin_len, char *err, size_t errlen);

#endif
