/* cuda_runtime.h (emulator shim): selects the CUDA dialect (32-bit lane masks) of the
 * CPU SIMT emulator's device prelude. Not the CUDA runtime: no host API is offered. */
#ifndef SIM_SHIM_CUDA_RUNTIME_H
#define SIM_SHIM_CUDA_RUNTIME_H
#define SIM_DIALECT SIM_DIALECT_CUDA
#include "../sim_prelude.h"
#endif
