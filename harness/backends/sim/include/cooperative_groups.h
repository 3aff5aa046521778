/* SPDX-License-Identifier: MIT */
/* cooperative_groups.h (emulator shim): the basics of cooperative groups (sim_cg.h). */
#ifndef SIM_SHIM_COOPERATIVE_GROUPS_H
#define SIM_SHIM_COOPERATIVE_GROUPS_H
#include "../sim_cg.h"
#include "cuda_runtime.h"
#endif
