/* SPDX-License-Identifier: MIT */
/* sim_switch.h: how sim_sched.c saves a context and resumes another: its own x86-64 switch
 * (sim_switch.c), or ucontext elsewhere and with -DSIM_UCONTEXT. When a context is resumed
 * is the scheduler's business, not this file's. */
#ifndef SIM_SWITCH_H
#define SIM_SWITCH_H

#include "sim_lanes.h"

#ifndef SIM_USE_UCONTEXT
/* sim_switch_in (scheduler to lane), sim_switch_out (lane to scheduler) and sim_switch_lane
 * (lane to the next lane of the pass) save the callee-saved registers on the current stack,
 * store the stack pointer in *save and resume the context whose stack pointer is `to`'s
 * (sim_switch_lane: to_sp, the pass's listing of it), at the return address its own switch
 * call left. The lane switches return the resumed lane's
 * collective result (sim_slot.res) there, so that a sync point can end in a jump to the
 * switch and its lane resume straight in the kernel that called it (sim_sched.c). A fresh
 * lane's stack is built so that the first switch resumes sim_fiber_entry with the lane in
 * rbx, which calls sim_fiber_main. MXCSR and the x87 control word are not switched: kernels
 * never change them. */
uint64_t sim_switch_in(void **save, const struct sim_slot *to) __attribute__((visibility("hidden")));
void sim_switch_out(void **save, void *to) __attribute__((visibility("hidden")));
uint64_t sim_switch_lane(void **save, const struct sim_slot *to, void *to_sp) __attribute__((visibility("hidden")));
void sim_fiber_entry(void) __attribute__((visibility("hidden")));
void sim_fiber_main(struct sim_lane *l) __attribute__((visibility("hidden"), noreturn));

/* Where the switch finds a slot's saved stack pointer and result. */
#define SIM_SLOT_RES_AT 24
#define SIM_SLOT_SP_AT 32
_Static_assert(offsetof(struct sim_slot, res) == SIM_SLOT_RES_AT && offsetof(struct sim_slot, sp) == SIM_SLOT_SP_AT,
               "sim_switch.c reads a slot's res and sp at these offsets");

#define SIM_SWITCH_TO_LANE(w, slot) sim_switch_in(&(w)->sched_sp, slot)
#define SIM_SWITCH_TO_SCHED(w, slot) sim_switch_out(&(slot)->sp, (w)->sched_sp)
#define SIM_SWITCH_LANES(from, to, to_sp) sim_switch_lane(&(from)->sp, to, to_sp)
#else
static inline uint64_t sim_swap_lanes(struct sim_slot *from, const struct sim_slot *to)
{
    swapcontext(&from->uc, &to->uc);
    return from->res;
}
#define SIM_SWITCH_TO_LANE(w, slot) swapcontext(&(w)->sched_uc, &(slot)->uc)
#define SIM_SWITCH_TO_SCHED(w, slot) swapcontext(&(slot)->uc, &(w)->sched_uc)
#define SIM_SWITCH_LANES(from, to, to_sp) sim_swap_lanes(from, to)
#endif

#endif
