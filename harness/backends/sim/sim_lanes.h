/* SPDX-License-Identifier: MIT */
/* sim_lanes.h: the scheduler's private state, shared by its files: sim_sched.c (lanes as
 * fibers, sync points, faults, running a block), sim_switch.c (the context switch),
 * sim_warp.c (completing warp collectives), sim_shuffle.c (the random schedule's pass
 * orders) and sim_overflow.c (naming a stack overflow). Nothing outside the scheduler
 * includes it: sim_sched.h is its interface. */
#ifndef SIM_LANES_H
#define SIM_LANES_H

#include "sim_sched.h"

#if !defined(__x86_64__) || defined(SIM_UCONTEXT)
#define SIM_USE_UCONTEXT 1
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif
#ifdef SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

enum { SIM_RUN, SIM_AT_BARRIER, SIM_AT_COLL, SIM_EXITED };

/* Lane i's stack top sits this far below its region's end, a colour of up to 16 KiB in the
 * descriptors' steps, so that stack tops share L2 sets no more than descriptors do. Taken
 * from the lane's index, not its address: the room a thread's locals have is then the same
 * in every run (sim_overflow.c names it). */
#define SIM_STACK_COLOUR_MAX ((SIM_DESC_COLOURS - 1) * SIM_DESC_BYTES)
static inline size_t sim_stack_colour(uint32_t lane) { return (lane & (SIM_DESC_COLOURS - 1)) * SIM_DESC_BYTES; }

/* Where a region's guard page starts: after its descriptor area, rounded up to a page. */
static inline size_t sim_guard_offset(size_t page) { return (SIM_DESC_AREA + page - 1) & ~(page - 1); }

/* The bytes a lane's stack has between its guard page and a top shifted down by colour. */
static inline size_t sim_stack_room(size_t colour, size_t page)
{
    return SIM_REGION_BYTES - colour - sim_guard_offset(page) - page;
}

/* Scheduler-side state of a lane, packed apart from the regions so a pass stays in cache;
 * where it stands (SIM_RUN ...) is in sim_worker.state. */
struct sim_slot {
    int op, arg, width;
    uint64_t val, res;
#ifdef SIM_USE_UCONTEXT
    ucontext_t uc;
#else
    void *sp;
#endif
#ifdef SIM_ASAN
    void *fake_stack;
#endif
};

/* Lane descriptor near the base of its region (SIM_DESC_AT); the kernel sees only `pub`, the
 * runtime's own fields are in its `runtime` words (sim_abi.h). */
struct sim_lane {
    union {
        struct sim_lane_pub pub;
        struct {
            const void *rt_;
            struct sim_worker *w;
            struct sim_slot *slot; /* &w->slots[index], at hand for the switch */
            uint32_t warp, index;
        };
    };
};
_Static_assert(sizeof(struct sim_lane) <= SIM_DESC_BYTES, "a lane descriptor must fit one colour step");
_Static_assert(offsetof(struct sim_lane, w) == offsetof(struct sim_lane_pub, runtime) &&
                   offsetof(struct sim_lane, index) + sizeof(uint32_t) <= offsetof(struct sim_lane_pub, bounds),
               "the runtime's lane fields must lie in sim_lane_pub.runtime");

struct sim_worker {
#ifdef SIM_USE_UCONTEXT
    ucontext_t sched_uc;
#else
    void *sched_sp;
#endif
#ifdef SIM_ASAN
    void *fake_stack;
    const void *sched_bottom;
    size_t sched_size;
#endif
    char *regions;
    size_t n_regions, page;
    int watch; /* its regions' slot in sim_overflow.c, or -1 */
    struct sim_slot *slots;
    /* Each lane's SIM_RUN ... SIM_EXITED, a byte apart: a block's fit a few cache lines, and a
     * barrier releasing every lane sets them with one memset (a barrier 7% cheaper than with
     * the state in each lane's slot). */
    uint8_t *state;
    uint32_t *order;
#ifndef SIM_USE_UCONTEXT
    /* Turn k's saved stack pointer, slots[order[k]].sp, listed as the pass begins: the switch
     * then finds it in two dependent loads (pass_k, this), not three (pass_k, order[k], the
     * slot's), and the switch is latency-bound (sgemm_tiled's lockstep repeats 18-25% sooner). */
    void **turn_sp;
#define SIM_TURN_SP(w, k) ((w)->turn_sp[k])
#define SIM_TURN_SP_BYTES(n) ((size_t)(n) * sizeof(void *))
#else
#define SIM_TURN_SP(w, k) NULL
#define SIM_TURN_SP_BYTES(n) ((size_t)0)
#endif
    /* What the scheduler would otherwise find by scanning every lane after each pass: the
     * lanes made runnable since the pass began, in index order (a pass runs them, shuffled
     * under the random schedule, in the order a scan gave), and per warp the lanes that can
     * still run and those waiting at a collective. A pass in which a lane only yielded (a
     * volatile access) leaves it runnable outside that list: the next pass scans. */
    uint32_t *ready, n_ready;
    uint32_t *warp_run, *warp_coll;
    struct sim_block_info info;
    const struct sim_launch *launch;
    uint32_t n;
    uint64_t rng;
    int wide_draws;                 /* the CPU makes eight draws at once (sim_shuffle.c) */
    uint64_t linear;                /* the block running */
    uint32_t pass_k, pass_m;        /* the pass runs order[0..pass_m) (0 once a lane stopped the
                                     * block): order[pass_k] has the turn */
    uint32_t yielded;               /* lanes of this pass that only yielded */
    uint32_t at_barrier;            /* lanes waiting at the block's barrier */
    struct sim_range shared;        /* the kernel's shared memory on this thread */
    struct sim_fault_rec faults[2]; /* reads, writes */
    int stopped;                    /* a lane made an access the emulator stopped: why is in stop */
    char stop[256];
};

/* A 32-bit hash scaled into [0, n) (Lemire's multiply), as every draw of the random schedule
 * is: sim_rand_below's and sim_shuffle_pass's batches must agree. */
static inline uint32_t sim_below(uint32_t hash, uint32_t n) { return (uint32_t)((uint64_t)hash * n >> 32); }

/* A draw in [0, n) from the block's seeded stream: splitmix64, whose state only steps by a
 * constant, so successive draws (a pass's shuffle) do not wait on each other's multiplies as
 * they did when each draw was the hash of the one before. Inline: the random schedule draws
 * once per lane per pass, and a call through the PLT cost more than the draw. */
static inline uint32_t sim_rand_below(struct sim_worker *w, uint32_t n)
{
    uint64_t x = sim_mix(w->rng);
    w->rng += SIM_MIX_GAMMA;
    return sim_below((uint32_t)(x >> 32), n);
}

/* sim_shuffle.c: whether this CPU has what sim_shuffle_pass's batches of draws use, and
 * order[0..m) shuffled with the block stream's next m - 1 draws. */
int sim_wide_draws(void);
void sim_shuffle_pass(struct sim_worker *w, uint32_t m);

/* Lane i made runnable: counted in its warp and listed for the next pass. */
static inline void sim_make_ready(struct sim_worker *w, uint32_t i, uint32_t warp)
{
    w->state[i] = SIM_RUN;
    w->warp_run[warp]++;
    w->ready[w->n_ready++] = i;
}

/* sim_warp.c */
/* Completes one pending collective in every stopped warp (lockstep) or in a random
 * non-empty subset of them (random). Returns whether any completed. */
int sim_resolve_warps(struct sim_worker *w, uint32_t n_warps);

#endif
