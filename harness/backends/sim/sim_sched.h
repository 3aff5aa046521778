/* sim_sched.h: runs one block of emulated GPU threads on the calling OS thread, as
 * lightweight contexts switched only at barriers and warp collectives. Knows nothing of
 * buffers, kernels' files or the harness: sim_backend.c hands it a call and a geometry. */
#ifndef SIM_SCHED_H
#define SIM_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "sim_abi.h"

/* How to call the kernel entry: buffers first, then 32-bit integers (the op ABIs). */
#define SIM_MAX_BUFS 4
#define SIM_MAX_INTS 6
struct sim_call {
    void (*fn)(void);
    int n_bufs, n_ints;
    void *bufs[SIM_MAX_BUFS];
    int32_t ints[SIM_MAX_INTS];
};

struct sim_launch {
    struct sim_call call;
    struct sim_dim3 grid, block;
    int width;
    int random;     /* 0: lockstep (index order); 1: seeded random order per block */
    /* Volatile accesses only yield, instead of stepping the warp in lockstep: NVIDIA's
     * independent thread scheduling, set for the CUDA dialect under the random schedule. */
    int volatile_yield;
    uint64_t seed;  /* already mixed with the launch counter */
};

/* splitmix64's finaliser: seeds per launch and per block from HB_SIM_SCHEDULE's SEED. */
static inline uint64_t sim_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct sim_worker; /* one per OS thread: the lane regions it reuses across blocks */

struct sim_worker *sim_worker_new(char *err, size_t errlen);
void sim_worker_free(struct sim_worker *w);

/* Runs block `linear` of the launch to completion. Returns 0, or -1 with err filled
 * (e.g. lanes left waiting forever). A faulting kernel crashes the process. */
int sim_run_block(struct sim_worker *w, const struct sim_launch *l, uint64_t linear, char *err,
                  size_t errlen);

#endif
