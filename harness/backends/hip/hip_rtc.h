/* SPDX-License-Identifier: MIT */
/* hip_rtc.h: what differs between the two HIP platforms outside the HIP API itself: the
 * product make builds per kernel, the name reports carry, and the run-time compile of a source
 * with no current product. Nothing here calls HIP; hip_backend.c does. */
#ifndef HB_HIP_RTC_H
#define HB_HIP_RTC_H

#include <stddef.h>

#include "backend.h"

/* NULL on AMD: the platform HIP is known for needs no label in a report. */
#ifdef __HIP_PLATFORM_NVIDIA__
#define HIP_PLATFORM_NAME "nvidia"
#define HIP_PRODUCT_DIR "hip-nv"
#define HIP_PRODUCT_EXT ".fatbin"
#define HIP_RTC_EXT ".cubin" /* run-time builds: one target, symbols readable (code_object.c) */
#define HIP_WRAP_EXT ".wrap.cu"
#else
#define HIP_PLATFORM_NAME NULL
#define HIP_PRODUCT_DIR "hip"
#define HIP_PRODUCT_EXT ".hsaco"
#define HIP_RTC_EXT ".hsaco"
#define HIP_WRAP_EXT ".wrap.hip" /* hipcc takes the language from the name */

#endif

/* Compiles spec's source for one device target (arch "gfx90a" or "sm_90") into the run-time
 * cache and names the product in path. HB_OK; HB_ERROR with the compiler's first error and
 * its log in err; HB_UNSUPPORTED when this machine has no compiler (an error instead for a
 * user's kernel, which must never pass by not running). */
int hip_rtc_compile(const struct hb_kernel_spec *spec, const char *arch, char *path, size_t len, char *err,
                    size_t errlen);

/* The symbol a manifest's entry as written names in the code object at path: 1 with it in
 * symbol when a kernel's demangled name is the entry (`ns::gemm<16>`, `ns::S::run`), else 0 with
 * the kernels there are listed in held ("" when the file holds none it can read). */
int hip_rtc_symbol(const char *entry, const char *path, char *symbol, size_t len, char *held, size_t heldlen);

/* The binary a loaded kernel runs, for reports (rtc_describe): path, source hash and the
 * command that built it; arch NULL: make built it. */
void hip_rtc_origin(const struct hb_kernel_spec *spec, const char *path, const char *arch, char *out, size_t len);

#endif
