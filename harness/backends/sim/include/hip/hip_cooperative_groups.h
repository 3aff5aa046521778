/* SPDX-License-Identifier: MIT */
/* hip/hip_cooperative_groups.h (emulator shim): the basics of cooperative groups (sim_cg.h). */
#ifndef SIM_SHIM_HIP_COOPERATIVE_GROUPS_H
#define SIM_SHIM_HIP_COOPERATIVE_GROUPS_H
#include "../../sim_cg.h"
#include "hip_runtime.h"
#endif
