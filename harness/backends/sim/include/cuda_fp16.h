/* SPDX-License-Identifier: MIT */
/* cuda_fp16.h (emulator shim): CUDA's half precision types and functions (sim_half.h). */
#ifndef SIM_SHIM_CUDA_FP16_H
#define SIM_SHIM_CUDA_FP16_H
#include "../sim_half.h"
#include "cuda_runtime.h"
#endif
