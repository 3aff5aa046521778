/* SPDX-License-Identifier: MIT */
/* cuda.h (emulator shim): the device prelude; the CUDA driver API (host code) is not offered. */
#ifndef SIM_SHIM_CUDA_H
#define SIM_SHIM_CUDA_H
#include "cuda_runtime.h"
#endif
