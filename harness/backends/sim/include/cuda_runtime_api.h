/* SPDX-License-Identifier: MIT */
/* cuda_runtime_api.h (emulator shim): the device prelude and the runtime's host API (cuda_runtime.h). */
#ifndef SIM_SHIM_CUDA_RUNTIME_API_H
#define SIM_SHIM_CUDA_RUNTIME_API_H
#include "cuda_runtime.h"
#endif
