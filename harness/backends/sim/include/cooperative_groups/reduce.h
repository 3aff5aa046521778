/* SPDX-License-Identifier: MIT */
/* cooperative_groups/reduce.h (emulator shim): cg::reduce lives with the rest (sim_cg.h). */
#ifndef SIM_SHIM_CG_REDUCE_H
#define SIM_SHIM_CG_REDUCE_H
#include "../cooperative_groups.h"
#endif
