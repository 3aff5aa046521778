/* SPDX-License-Identifier: MIT */
/* hip/hip_runtime.h (emulator shim): selects the HIP dialect (64-bit lane masks) of the
 * CPU SIMT emulator's device prelude, unless a CUDA header came first, and declares the HIP
 * runtime's host API (sim_host_hip.h), which host code may call but the emulator never runs.
 * Run-time builds include it implicitly, as hipcc does. */
#ifndef SIM_SHIM_HIP_RUNTIME_H
#define SIM_SHIM_HIP_RUNTIME_H
#ifndef SIM_DIALECT
#define SIM_DIALECT SIM_DIALECT_HIP
#endif
#include "../../sim_host_hip.h"
#include "../../sim_prelude.h"
#endif
