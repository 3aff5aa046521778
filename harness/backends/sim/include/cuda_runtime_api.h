/* cuda_runtime_api.h (emulator shim): the device prelude; no host API is offered. */
#ifndef SIM_SHIM_CUDA_RUNTIME_API_H
#define SIM_SHIM_CUDA_RUNTIME_API_H
#include "cuda_runtime.h"
#endif
