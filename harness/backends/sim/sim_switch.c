/* SPDX-License-Identifier: MIT */
/* sim_switch.c: the x86-64 lane switch that sim_switch.h declares. Each kind resumes with an
 * indirect jump, not `ret`. A return is predicted from the calls just made, the address where
 * the suspending context stopped, while the lane resumed goes on where it stopped a pass
 * before (sgemm_tiled's lanes stop at one barrier and go on from the other: its launches 50%
 * slower with `ret`), and between the scheduler and a lane it is wrong on every switch (jumps
 * took the emulator's quick tier 17% less CPU on a 2-core CI machine, 5% on the GPU host's).
 * A jump's target repeats instead: the scheduler's one call site; a lane at the same sync
 * point as the lane before it. */
#include "sim_switch.h"

#ifndef SIM_USE_UCONTEXT
#define SIM_STR_(x) #x
#define SIM_STR(x) SIM_STR_(x)
/* `load` puts the resumed context's stack pointer in rsp (and, into a lane, its result in rax). */
#define SIM_SWITCH_ASM(name, load)                                                                                     \
    ".globl " name "\n.hidden " name "\n.type " name ",@function\n" name ":\n"                                         \
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"                             \
    "  movq %rsp, (%rdi)\n" load "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"      \
    "  popq %rcx\n  jmp *%rcx\n"                                                                                       \
    ".size " name ", .-" name "\n"
#define SIM_LOAD_LANE                                                                                                  \
    "  movq " SIM_STR(SIM_SLOT_SP_AT) "(%rsi), %rsp\n  movq " SIM_STR(SIM_SLOT_RES_AT) "(%rsi), %rax\n"
__asm__(".text\n" SIM_SWITCH_ASM("sim_switch_in", SIM_LOAD_LANE) SIM_SWITCH_ASM("sim_switch_out", "  movq %rsi, %rsp\n")
            SIM_SWITCH_ASM("sim_switch_lane", "  movq %rdx, %rsp\n  movq " SIM_STR(SIM_SLOT_RES_AT) "(%rsi), %rax\n"));
__asm__(".text\n.globl sim_fiber_entry\n.hidden sim_fiber_entry\n.type sim_fiber_entry,@function\n"
        "sim_fiber_entry:\n"
        "  movq %rbx, %rdi\n  call sim_fiber_main\n  ud2\n"
        ".size sim_fiber_entry, .-sim_fiber_entry\n");
#endif
