/* SPDX-License-Identifier: MIT */
/* hip/hip_fp16.h (emulator shim): HIP's half precision types and functions (sim_half.h). */
#ifndef SIM_SHIM_HIP_FP16_H
#define SIM_SHIM_HIP_FP16_H
#include "../../sim_half.h"
#include "hip_runtime.h"
#endif
