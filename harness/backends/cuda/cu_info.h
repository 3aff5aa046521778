/* SPDX-License-Identifier: MIT */
/* cu_info.h: the CUDA backend's kernel figures (cu_info.c), apart from cu_backend.c so that
 * neither grows past what one reads at once. */
#ifndef HB_CU_INFO_H
#define HB_CU_INFO_H

#include <stddef.h>

#include "backend.h"

/* Figures of kernel fn (a cudaKernel_t or function pointer) launched with `block` and
 * `dyn_shared` bytes of dynamic shared memory on device dev. HB_OK, or HB_ERROR with err. */
int cu_kernel_figures(const void *fn, int dev, const unsigned block[3], unsigned dyn_shared, struct hb_kernel_info *out,
                      char *err, size_t errlen);

#endif
