/* SPDX-License-Identifier: MIT */
/* sim_sched.h: runs one block of emulated GPU threads on the calling OS thread, as
 * lightweight contexts switched only at barriers and warp collectives, and records the
 * accesses its lanes make outside their launch's ranges. Knows nothing of kernels' files or
 * the harness: sim_backend.c hands it a call, a geometry and the ranges. */
#ifndef SIM_SCHED_H
#define SIM_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "sim_abi.h"

/* How to call the kernel entry: buffers first, then 32-bit integers (the op ABIs), or a
 * wrapped entry (sim_wrap.cc) taking the arguments in the kernel's own order. */
#define SIM_MAX_BUFS 4
#define SIM_MAX_INTS 6
#define SIM_MAX_ARGS 16
struct sim_call {
    void (*fn)(void);
    int wrapped;
    int n_bufs, n_ints, n_args;
    void *bufs[SIM_MAX_BUFS];
    int32_t ints[SIM_MAX_INTS];
    struct sim_arg args[SIM_MAX_ARGS];
};

/* A buffer argument as the fault handler sees it: its data, and the memory around it that
 * the emulator owns (the allocation and its slack), where a stray access does no harm. */
#define SIM_MAX_VIEWS 8
struct sim_view {
    uintptr_t data_lo, data_hi, own_lo, own_hi;
};

struct sim_launch {
    struct sim_call call;
    struct sim_dim3 grid, block;
    int width;
    int random; /* 0: lockstep (index order); 1: seeded random order per block */
    /* Volatile accesses only yield, instead of stepping the warp in lockstep: NVIDIA's
     * independent thread scheduling, set for the CUDA dialect under the random schedule. */
    int volatile_yield;
    uint64_t seed;            /* already mixed with the case and launch */
    struct sim_bounds bounds; /* what kernel code may touch besides stacks and shared memory */
    int n_views;
    struct sim_view views[SIM_MAX_VIEWS];
};

/* Out-of-bounds accesses of one kind seen by one worker in a launch, and the first of them
 * (a worker takes blocks in increasing order, so its first is its lowest block's). */
struct sim_fault_rec {
    long long count;
    uint64_t block; /* linear index of the first one's block */
    int arg;        /* buffer argument it hit, -1 for none */
    long long offset;
    struct sim_dim3 block_idx, tid;
};

/* splitmix64's increment: a block's random stream is sim_mix of a counter stepped by it. */
#define SIM_MIX_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64's finaliser: seeds per launch and per block from HB_SIM_SCHEDULE's SEED. */
static inline uint64_t sim_mix(uint64_t x)
{
    x += SIM_MIX_GAMMA;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct sim_worker; /* one per OS thread: the lane regions it reuses across blocks */

struct sim_worker *sim_worker_new(char *err, size_t errlen);
void sim_worker_free(struct sim_worker *w);
/* The kernel's shared memory on this worker's thread, [lo, hi), for the access checks. */
void sim_worker_set_shared(struct sim_worker *w, uintptr_t lo, uintptr_t hi);
/* Forgets the faults of the previous launch. */
void sim_worker_reset_faults(struct sim_worker *w);
/* This launch's out-of-bounds reads and writes on this worker. */
const struct sim_fault_rec *sim_worker_faults(const struct sim_worker *w, int write);

/* Runs block `linear` of the launch to completion. Returns 0, or -1 with err filled (lanes
 * left waiting forever, or an access the emulator stopped: misaligned, or outside any memory
 * it owns). An access the checks cannot see may still crash the process. */
int sim_run_block(struct sim_worker *w, const struct sim_launch *l, uint64_t linear, char *err, size_t errlen);

/* The slow path of access checking (sim_check.c). Whether [a, a+n) lies in the lane's own
 * region, the block's shared memory or a launch range; */
int sim_check_inside(const struct sim_lane_pub *lane, uintptr_t a, unsigned n);
/* which buffer argument it belongs to (-1: none) and its offset from that argument's data
 * start; returns whether the memory is the emulator's (harmless to touch). */
int sim_check_attribute(const struct sim_launch *l, uintptr_t a, unsigned n, int *arg, long long *offset);
/* "buffer argument 2 at byte offset 8192" or "address 0x10 (no buffer argument)". */
void sim_check_where(int arg, long long offset, uintptr_t a, char *out, size_t len);

/* Lane stack overflows (sim_overflow.c), which a kernel's large locals make: the process dies
 * of one as before, first naming the thread and the limit on stderr. arm: a SIGSEGV handler,
 * once per process unless another (a sanitizer's) is there, and an alternate signal stack for
 * the calling OS thread, which runs lanes (the overflowed stack cannot run the handler);
 * disarm, on the same thread, frees it. watch: [lo, hi) holds lane regions (empty: none),
 * in the given slot or a new one (slot -1); returns the slot, -1 when all are taken (then
 * an overflow is the bare crash it was). unwatch gives the slot back. */
void sim_overflow_arm(void);
void sim_overflow_disarm(void);
int sim_overflow_watch(int slot, uintptr_t lo, uintptr_t hi);
void sim_overflow_unwatch(int slot);

/* Calls the kernel entry of l->call on the current lane (sim_call.c). */
void sim_call_kernel(const struct sim_call *c);

#endif
