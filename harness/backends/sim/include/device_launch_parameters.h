/* SPDX-License-Identifier: MIT */
/* device_launch_parameters.h (emulator shim): threadIdx and friends come with the prelude. */
#ifndef SIM_SHIM_DEVICE_LAUNCH_PARAMETERS_H
#define SIM_SHIM_DEVICE_LAUNCH_PARAMETERS_H
#include "cuda_runtime.h"
#endif
