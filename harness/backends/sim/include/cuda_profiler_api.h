/* SPDX-License-Identifier: MIT */
/* cuda_profiler_api.h (emulator shim): cudaProfilerStart and cudaProfilerStop come with the
 * runtime's host API (sim_host_cuda.h), never run. */
#ifndef SIM_SHIM_CUDA_PROFILER_API_H
#define SIM_SHIM_CUDA_PROFILER_API_H
#include "cuda_runtime.h"
#endif
