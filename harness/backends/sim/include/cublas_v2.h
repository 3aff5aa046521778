/* SPDX-License-Identifier: MIT */
/* cublas_v2.h (emulator shim): empty. Kernel sources often include it for host code beside
 * their kernels; the emulator builds device code only, and a use of cuBLAS is named as such. */
#ifndef SIM_SHIM_CUBLAS_V2_H
#define SIM_SHIM_CUBLAS_V2_H
#include "cuda_runtime.h"
#endif
