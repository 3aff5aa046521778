/* hip/hip_runtime.h (emulator shim): selects the HIP dialect (64-bit lane masks) of the
 * CPU SIMT emulator's device prelude. Not the HIP runtime: no host API is offered. */
#ifndef SIM_SHIM_HIP_RUNTIME_H
#define SIM_SHIM_HIP_RUNTIME_H
#define SIM_DIALECT SIM_DIALECT_HIP
#include "../../sim_prelude.h"
#endif
