/* SPDX-License-Identifier: MIT */
/* sim_sched.c: the emulator's core. A block's threads are contexts on small stacks of one
 * OS thread, switched (sim_switch.h) only at sync points: __syncthreads, warp collectives
 * (sim_warp.c) and volatile accesses. Random schedule: shuffled lanes, drifting warps, (CUDA)
 * no volatile lockstep. Accesses outside the launch's ranges land in sim_fault; it decides no
 * verdict. */
#include "sim_switch.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void sim_barrier(struct sim_lane_pub *self);
static uint64_t sim_collective(struct sim_lane_pub *self, int op, uint64_t value, int arg, int width);
static void sim_fault(struct sim_lane_pub *self, uintptr_t addr, unsigned size, int flags);
static const struct sim_rt sim_rt_table = {sim_barrier, sim_collective, sim_fault};

static char *sim_region(struct sim_worker *w, uint32_t i) { return w->regions + (size_t)i * SIM_REGION_BYTES; }

static struct sim_lane *sim_lane_at(struct sim_worker *w, uint32_t i)
{
    return (struct sim_lane *)SIM_DESC_AT(sim_region(w, i));
}

/* Lane stacks: above the descriptor area and a guard page, up to a top shifted down by its
 * colour (sim_lanes.h). */
static char *sim_stack_bottom(struct sim_worker *w, uint32_t i)
{
    return sim_region(w, i) + sim_guard_offset(w->page) + w->page;
}

static char *sim_stack_top(struct sim_worker *w, uint32_t i)
{
    return sim_region(w, i) + SIM_REGION_BYTES - sim_stack_colour(i);
}

/* ---- context switching ---- */

#ifndef SIM_USE_UCONTEXT
static void sim_lane_prepare(struct sim_worker *w, uint32_t i)
{
    /* 6 saved registers + return address, placed so that rsp is 16-byte aligned when
     * sim_fiber_entry makes its call, as the SysV ABI requires. */
    uint64_t *s = (uint64_t *)(sim_stack_top(w, i) - 72);
    memset(s, 0, 72);
    s[4] = (uint64_t)(uintptr_t)sim_lane_at(w, i); /* rbx */
    s[6] = (uint64_t)(uintptr_t)sim_fiber_entry;
    w->slots[i].sp = s;
}
#else
static void sim_fiber_main(struct sim_lane *l) __attribute__((noreturn));
static void sim_fiber_start(unsigned hi, unsigned lo)
{
    sim_fiber_main((struct sim_lane *)(uintptr_t)(((uint64_t)hi << 32) | lo));
}
static void sim_lane_prepare(struct sim_worker *w, uint32_t i)
{
    uint64_t p = (uint64_t)(uintptr_t)sim_lane_at(w, i);
    ucontext_t *uc = &w->slots[i].uc;
    getcontext(uc);
    uc->uc_stack.ss_sp = sim_stack_bottom(w, i);
    uc->uc_stack.ss_size = (size_t)(sim_stack_top(w, i) - sim_stack_bottom(w, i));
    uc->uc_link = NULL;
    makecontext(uc, (void (*)(void))sim_fiber_start, 2, (unsigned)(p >> 32), (unsigned)p);
}
#endif

/* The scheduler side of a switch into lane i and back. */
static void sim_enter_lane(struct sim_worker *w, uint32_t i)
{
#ifdef SIM_ASAN
    __sanitizer_start_switch_fiber(&w->fake_stack, sim_stack_bottom(w, i),
                                   (size_t)(sim_stack_top(w, i) - sim_stack_bottom(w, i)));
#endif
    SIM_SWITCH_TO_LANE(w, &w->slots[i]);
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(w->fake_stack, NULL, NULL);
#endif
}

/* The lane side: stop here and let the scheduler run; returns when resumed. */
static void sim_yield(struct sim_lane *l)
{
    struct sim_worker *w = l->w;
#ifdef SIM_ASAN
    __sanitizer_start_switch_fiber(&l->slot->fake_stack, w->sched_bottom, w->sched_size);
#endif
    SIM_SWITCH_TO_SCHED(w, l->slot);
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(l->slot->fake_stack, &w->sched_bottom, &w->sched_size);
#endif
}

/* Ends the turn of the lane that has it: 1 when the pass's next lane takes it (*next), 0
 * when the scheduler runs next (the pass is over, or a lane stopped the block and so ended
 * the pass). A lane hands the turn on itself, one switch where going through the scheduler
 * took two. Under ASan every turn goes back to the scheduler, whose stack the fiber
 * annotations name. */
static inline __attribute__((always_inline)) int sim_next_turn(struct sim_worker *w, struct sim_slot **next,
                                                               void **next_sp)
{
    uint32_t k = ++w->pass_k, m = w->pass_m;
    /* The lane after the next one: its saved registers, the kernel's frame above them and its
     * descriptor are cold by the time it runs (every other lane of the block ran since), so
     * they are fetched while the next one runs (reduce_generic's repeats 7% sooner). */
    if (k + 1 < m) {
        uint32_t after = w->order[k + 1];
#ifndef SIM_USE_UCONTEXT
        const char *sp = w->turn_sp[k + 1];
        for (int line = 0; line < 3; line++)
            __builtin_prefetch(sp + 64 * line);
#endif
        __builtin_prefetch(sim_lane_at(w, after));
    }
#ifdef SIM_ASAN
    (void)next;
    (void)next_sp;
#else
    if (k < m) {
        *next = &w->slots[w->order[k]];
        *next_sp = SIM_TURN_SP(w, k);
        return 1;
    }
#endif
    return 0;
}

/* The lane side of a sync point, its state set: returns, with its collective's result, when
 * the lane is resumed. Sync points end with it and it ends with the switch, each a jump, so
 * that the lane resumes in the kernel's call, not through the runtime's frames: their
 * returns were predicted from the suspending lane's calls, wrong as often as not once the
 * jump had resumed another lane (reduce_generic's launches 27-31% sooner without them). */
static inline __attribute__((always_inline)) uint64_t sim_turn_over(struct sim_lane *l, struct sim_worker *w)
{
    struct sim_slot *next;
    void *next_sp;
    if (sim_next_turn(w, &next, &next_sp))
        return SIM_SWITCH_LANES(l->slot, next, next_sp);
    sim_yield(l);
    return l->slot->res;
}

/* Leaves the lane for good: an exited lane is never resumed. */
static void sim_lane_exit(struct sim_lane *l) __attribute__((noreturn));
static void sim_lane_exit(struct sim_lane *l)
{
    struct sim_worker *w = l->w;
    w->state[l->index] = SIM_EXITED;
    w->warp_run[l->warp]--;
    struct sim_slot *next;
    void *next_sp;
    if (sim_next_turn(w, &next, &next_sp))
        SIM_SWITCH_LANES(l->slot, next, next_sp);
#ifdef SIM_ASAN
    __sanitizer_start_switch_fiber(NULL, w->sched_bottom, w->sched_size); /* frees our fake stack */
#endif
    SIM_SWITCH_TO_SCHED(w, l->slot);
    __builtin_unreachable();
}

void sim_fiber_main(struct sim_lane *l)
{
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(NULL, &l->w->sched_bottom, &l->w->sched_size);
#endif
    sim_call_kernel(&l->w->launch->call);
    sim_lane_exit(l);
}

/* ---- sync points, called from kernel code on the lane's stack ---- */

static void sim_barrier(struct sim_lane_pub *self)
{
    struct sim_lane *l = (struct sim_lane *)self;
    struct sim_worker *w = l->w;
    w->state[l->index] = SIM_AT_BARRIER;
    w->warp_run[l->warp]--;
    w->at_barrier++;
    sim_turn_over(l, w);
}

static uint64_t sim_collective(struct sim_lane_pub *self, int op, uint64_t value, int arg, int width)
{
    struct sim_lane *l = (struct sim_lane *)self;
    struct sim_slot *s = l->slot;
    struct sim_worker *w = l->w;
    if (op == SIM_OP_VOLATILE && w->launch->volatile_yield) {
        /* Still runnable: any lane may run before this access. A random run length: it
         * goes on at once half the time, so lanes fall out of step with each other. */
        if (!sim_rand_below(w, 2)) {
            w->yielded++;
            return sim_turn_over(l, w); /* a volatile access's hook reads no result */
        }
        return 0;
    }
    w->state[l->index] = SIM_AT_COLL;
    w->warp_run[l->warp]--;
    w->warp_coll[l->warp]++;
    s->op = op;
    s->val = value;
    s->arg = arg;
    s->width = width;
    return sim_turn_over(l, w);
}

/* An access outside the launch's ranges (sim_abi.h): counted, the first of each kind kept
 * with its thread. A misaligned access, or one outside all memory the emulator owns, stops
 * the block here, before it happens: on a GPU both end the launch with an error, and on the
 * host the access could corrupt the emulator itself. */
static void sim_fault(struct sim_lane_pub *self, uintptr_t a, unsigned n, int flags)
{
    struct sim_lane *l = (struct sim_lane *)self;
    struct sim_worker *w = l->w;
    int write = (flags & SIM_ACC_WRITE) != 0;
    int misaligned = (flags & SIM_ACC_ALIGNED) && (a & (n - 1));
    int arg = -1, owned = 0;
    long long off = 0;
    int inside = misaligned && sim_check_inside(self, a, n);
    owned = sim_check_attribute(w->launch, a, n, &arg, &off);
    if (!inside) {
        struct sim_fault_rec *r = &w->faults[write];
        if (r->count++ == 0) {
            r->block = w->linear;
            r->arg = arg;
            r->offset = off;
            r->block_idx = w->info.block_idx;
            r->tid = self->tid;
        }
    }
    if (!misaligned && owned)
        return;
    char where[128];
    sim_check_where(arg, off, a, where, sizeof where);
    snprintf(w->stop, sizeof w->stop, "%s %u-byte %s at %s by thread (%u,%u,%u) of block (%u,%u,%u)%s",
             misaligned ? "misaligned" : "illegal", n, write ? "write" : "read", where, self->tid.x, self->tid.y,
             self->tid.z, w->info.block_idx.x, w->info.block_idx.y, w->info.block_idx.z,
             misaligned ? "" : ", outside every buffer");
    /* A null pointer cannot corrupt anything: its access goes ahead and kills the process
     * (a crash, which the core contains), named first on stderr. */
    if (!misaligned && a < w->page) {
        fprintf(stderr, "sim: %s: a null pointer, the process dies on it\n", w->stop);
        return;
    }
    w->stopped = 1;
    w->pass_m = 0; /* no lane takes the turn after this one */
    sim_lane_exit(l);
}

/* ---- scheduling ---- */

/* Linux 6.13's guard regions fault as PROT_NONE pages do, at a third of mprotect's cost and
 * without splitting the mapping into a VMA a page (faults on the stacks then cost less too):
 * a first launch maps 256 of them a worker. Older kernels refuse the advice: mprotect then. */
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
static int sim_guard_page(char *page, size_t bytes)
{
    static atomic_int no_guard_advice; /* workers set up their stacks in parallel */
    if (!atomic_load_explicit(&no_guard_advice, memory_order_relaxed) && madvise(page, bytes, MADV_GUARD_INSTALL) == 0)
        return 0;
    atomic_store_explicit(&no_guard_advice, 1, memory_order_relaxed);
    return mprotect(page, bytes, PROT_NONE);
}

static int sim_ensure_regions(struct sim_worker *w, uint32_t n, char *err, size_t errlen)
{
    if (n <= w->n_regions)
        return 0;
    if (w->regions) {
        sim_overflow_watch(w->watch, 0, 0);
        munmap(w->regions, w->n_regions * SIM_REGION_BYTES);
    }
    w->regions = NULL;
    w->n_regions = 0;
    size_t bytes = (size_t)n * SIM_REGION_BYTES, extra = SIM_REGION_BYTES;
    char *m = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "mmap(%zu bytes of lane stacks): %s", bytes, strerror(errno));
        return -1;
    }
    /* Regions must be aligned to their size: lanes find their descriptor by masking sp. */
    char *a = (char *)(((uintptr_t)m + SIM_REGION_BYTES - 1) & ~(uintptr_t)(SIM_REGION_BYTES - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + bytes < m + bytes + extra)
        munmap(a + bytes, (size_t)(m + bytes + extra - (a + bytes)));
    struct sim_slot *slots = realloc(w->slots, n * sizeof *slots);
    size_t lists = (4 * (size_t)n * sizeof(uint32_t) + n + 7) & ~(size_t)7;
    uint32_t *order = slots ? realloc(w->order, lists + SIM_TURN_SP_BYTES(n)) : NULL;
    if (slots)
        w->slots = slots;
    if (order) {
        w->order = order;
        w->ready = order + n;
        w->warp_run = order + 2 * n;
        w->warp_coll = order + 3 * n;
        w->state = (uint8_t *)(order + 4 * n);
#ifndef SIM_USE_UCONTEXT
        w->turn_sp = (void **)((char *)order + lists);
#endif
    }
    if (!slots || !order) {
        snprintf(err, errlen, "realloc(scheduler state for %u lanes) failed", n);
        munmap(a, bytes);
        return -1;
    }
    w->regions = a;
    w->n_regions = n;
    /* A stack overflow hits the guard page below the stack, not the lane's descriptor. */
    for (uint32_t i = 0; i < n; i++)
        if (sim_guard_page(sim_stack_bottom(w, i) - w->page, w->page) != 0) {
            snprintf(err, errlen, "mprotect(lane stack guard page): %s", strerror(errno));
            munmap(a, bytes);
            w->regions = NULL;
            w->n_regions = 0;
            return -1;
        }
    w->watch = sim_overflow_watch(w->watch, (uintptr_t)a, (uintptr_t)a + bytes);
    return 0;
}

struct sim_worker *sim_worker_new(char *err, size_t errlen)
{
    struct sim_worker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "calloc(sim_worker) failed");
        return NULL;
    }
    w->page = (size_t)sysconf(_SC_PAGESIZE);
    w->watch = -1;
    w->wide_draws = sim_wide_draws();
    return w;
}

void sim_worker_set_shared(struct sim_worker *w, uintptr_t lo, uintptr_t hi) { w->shared = (struct sim_range){lo, hi}; }

void sim_worker_reset_faults(struct sim_worker *w) { memset(w->faults, 0, sizeof w->faults); }

const struct sim_fault_rec *sim_worker_faults(const struct sim_worker *w, int write) { return &w->faults[write != 0]; }

void sim_worker_free(struct sim_worker *w)
{
    if (!w)
        return;
    sim_overflow_unwatch(w->watch);
    if (w->regions)
        munmap(w->regions, w->n_regions * SIM_REGION_BYTES);
    free(w->slots);
    free(w->order);
    free(w);
}

/* Block w->linear's lanes, fresh, every one ready for the first pass. */
static void sim_block_lanes(struct sim_worker *w, const struct sim_launch *L, uint32_t n)
{
    uint32_t W = (uint32_t)L->width, n_warps = (n + W - 1) / W;
    memset(w->warp_run, 0, n_warps * sizeof *w->warp_run);
    memset(w->warp_coll, 0, n_warps * sizeof *w->warp_coll);
    w->n_ready = 0;
    w->yielded = 0;
    w->at_barrier = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct sim_lane *l = sim_lane_at(w, i);
        l->pub.rt = &sim_rt_table;
        l->pub.bounds = &L->bounds;
        l->pub.shared = w->shared;
        l->pub.blk = w->info;
        l->pub.tid.x = i % L->block.x;
        l->pub.tid.y = i / L->block.x % L->block.y;
        l->pub.tid.z = i / (L->block.x * L->block.y);
        l->w = w;
        l->slot = &w->slots[i];
        l->warp = i / W;
        l->index = i;
        sim_make_ready(w, i, i / W);
        sim_lane_prepare(w, i);
    }
}

/* Makes every lane waiting at the barrier runnable, in index order; returns how many. When
 * every lane of the block is there, the usual case, no lane's state is read and no warp index
 * divided out: sgemm_tiled's lanes run 16 FMAs between barriers, and that scan was 8% of its
 * unchecked launch. */
static uint32_t sim_release_barrier(struct sim_worker *w, uint32_t W)
{
    uint32_t n = w->n, released = w->at_barrier;
    w->at_barrier = 0;
    if (released == n) {
        memset(w->state, SIM_RUN, n);
        for (uint32_t i = 0; i < n; i++)
            w->ready[i] = i;
        for (uint32_t g = 0; g * W < n; g++)
            w->warp_run[g] = n - g * W < W ? n - g * W : W;
        w->n_ready = n;
        return n;
    }
    for (uint32_t i = 0, warp = 0, lane = 0, left = released; left && i < n; i++) {
        if (w->state[i] == SIM_AT_BARRIER) {
            sim_make_ready(w, i, warp);
            left--;
        }
        if (++lane == W) {
            lane = 0;
            warp++;
        }
    }
    return released;
}

/* The pass's saved stack pointers in turn order: every lane of the pass stopped before it
 * began, so they stay as they are until each lane's turn (sim_next_turn). */
static void sim_list_turns(struct sim_worker *w, uint32_t m)
{
#ifndef SIM_USE_UCONTEXT
    void **turn_sp = w->turn_sp; /* held apart from w: a store through w->turn_sp may alias w */
    const uint32_t *order = w->order;
    const struct sim_slot *slots = w->slots;
    for (uint32_t k = 0; k < m; k++)
        turn_sp[k] = slots[order[k]].sp;
#else
    (void)w, (void)m;
#endif
}

int sim_run_block(struct sim_worker *w, const struct sim_launch *L, uint64_t linear, char *err, size_t errlen)
{
    uint32_t n = L->block.x * L->block.y * L->block.z;
    if (sim_ensure_regions(w, n, err, errlen) != 0)
        return -1;
    w->launch = L;
    w->n = n;
    w->linear = linear;
    w->stopped = 0;
    w->info.block_dim = L->block;
    w->info.grid_dim = L->grid;
    w->info.width = L->width;
    w->info.block_idx.x = (unsigned)(linear % L->grid.x);
    w->info.block_idx.y = (unsigned)(linear / L->grid.x % L->grid.y);
    w->info.block_idx.z = (unsigned)(linear / ((uint64_t)L->grid.x * L->grid.y));
    w->rng = sim_mix(L->seed ^ sim_mix(linear));
    uint32_t W = (uint32_t)L->width, n_warps = (n + W - 1) / W;
    sim_block_lanes(w, L, n);
    for (;;) {
        /* One pass: every runnable lane runs until its next sync point or exit, in index
         * order before any shuffle: the lanes made ready since the last pass, or, after a
         * pass in which lanes only yielded, every lane that can run. */
        uint32_t m = 0;
        if (w->yielded) {
            for (uint32_t i = 0; i < n; i++)
                if (w->state[i] == SIM_RUN)
                    w->order[m++] = i;
        } else {
            memcpy(w->order, w->ready, w->n_ready * sizeof *w->order);
            m = w->n_ready;
        }
        w->n_ready = 0;
        if (L->random)
            sim_shuffle_pass(w, m);
        sim_list_turns(w, m);
        /* The lanes pass the turn on among themselves (sim_turn_over): this returns once
         * the pass is over, or a lane stopped the block. */
        w->pass_k = 0;
        w->pass_m = m;
        w->yielded = 0;
        while (w->pass_k < m && !w->stopped)
            sim_enter_lane(w, w->order[w->pass_k]);
        if (w->stopped) {
            snprintf(err, errlen, "%s", w->stop);
            return -1;
        }
        /* Complete the collectives of warps that have stopped, and the barrier only once
         * no lane can run. The random schedule completes a random subset of the waiting
         * warps, so warps drift apart between barriers as they do on hardware. */
        if (sim_resolve_warps(w, n_warps) || w->yielded)
            continue;
        /* Exited lanes do not hold a barrier up, as on current GPUs. */
        if (!sim_release_barrier(w, W))
            return 0;
    }
}
