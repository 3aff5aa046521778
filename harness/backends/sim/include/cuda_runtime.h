/* SPDX-License-Identifier: MIT */
/* cuda_runtime.h (emulator shim): selects the CUDA dialect (32-bit lane masks) of the
 * CPU SIMT emulator's device prelude, unless a HIP header came first, and declares the CUDA
 * runtime's host API (sim_host_cuda.h), which host code may call but the emulator never runs.
 * Run-time builds include it implicitly, as nvcc does. */
#ifndef SIM_SHIM_CUDA_RUNTIME_H
#define SIM_SHIM_CUDA_RUNTIME_H
#ifndef SIM_DIALECT
#define SIM_DIALECT SIM_DIALECT_CUDA
#endif
#include "../sim_host_cuda.h"
#include "../sim_prelude.h"
#endif
