/* hip/hip_runtime.h (emulator shim): selects the HIP dialect (64-bit lane masks) of the
 * CPU SIMT emulator's device prelude, unless a CUDA header came first. Not the HIP runtime:
 * no host API is offered. Run-time builds include it implicitly, as hipcc does. */
#ifndef SIM_SHIM_HIP_RUNTIME_H
#define SIM_SHIM_HIP_RUNTIME_H
#ifndef SIM_DIALECT
#define SIM_DIALECT SIM_DIALECT_HIP
#endif
#include "../../sim_prelude.h"
#endif
