/* SPDX-License-Identifier: MIT */
/* hip/hip_runtime_api.h (emulator shim): the device prelude and HIP's host API (hip_runtime.h). */
#ifndef SIM_SHIM_HIP_RUNTIME_API_H
#define SIM_SHIM_HIP_RUNTIME_API_H
#include "hip_runtime.h"
#endif
