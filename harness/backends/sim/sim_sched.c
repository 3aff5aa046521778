/* sim_sched.c: the emulator's core. A block's threads are contexts on small stacks of one
 * OS thread, switched only at sync points: __syncthreads, warp collectives and volatile
 * accesses (own x86-64 switch; ucontext elsewhere or with -DSIM_UCONTEXT). A warp collective
 * completes once every lane of its warp has stopped; lanes stopped elsewhere are inactive
 * in it. Random schedule: shuffled lanes, drifting warps, (CUDA) no volatile lockstep. */
#include "sim_sched.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Scheduler-side state of a lane, packed apart from the regions so a pass stays in cache. */
struct sim_slot {
    int state, op, arg, width;
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

/* Lane descriptor near the base of its region (SIM_DESC_AT); the kernel sees only `pub`. */
struct sim_lane {
    struct sim_lane_pub pub;
    struct sim_worker *w;
    struct sim_slot *slot;
};
_Static_assert(sizeof(struct sim_lane) <= 64, "a lane descriptor must fit one colour step");

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
    struct sim_slot *slots;
    uint32_t *order;
    struct sim_block_info info;
    const struct sim_launch *launch;
    uint32_t n;
    uint64_t rng;
};

static void sim_barrier(struct sim_lane_pub *self);
static uint64_t sim_collective(struct sim_lane_pub *self, int op, uint64_t value, int arg,
                               int width);
static const struct sim_rt sim_rt_table = {sim_barrier, sim_collective};

static char *sim_region(struct sim_worker *w, uint32_t i)
{
    return w->regions + (size_t)i * SIM_REGION_BYTES;
}

static struct sim_lane *sim_lane_at(struct sim_worker *w, uint32_t i)
{
    return (struct sim_lane *)SIM_DESC_AT(sim_region(w, i));
}

/* Lane stacks: above the descriptor page and its guard page, up to a top shifted down by
 * a colour of up to 32 KiB so that 256 stack tops do not share L1/L2 sets. */
static char *sim_stack_bottom(struct sim_worker *w, uint32_t i)
{
    return sim_region(w, i) + 2 * w->page;
}

static char *sim_stack_top(struct sim_worker *w, uint32_t i)
{
    char *r = sim_region(w, i);
    return r + SIM_REGION_BYTES - (((uintptr_t)r / SIM_REGION_BYTES) & 511u) * 64u;
}

/* ---- context switching ---- */

#ifndef SIM_USE_UCONTEXT
/* sim_switch saves the callee-saved registers on the current stack, stores the stack
 * pointer in *save and resumes the context whose stack pointer is `to`. A fresh lane's
 * stack is built so that the first switch "returns" into sim_fiber_entry with the lane in
 * rbx. MXCSR and the x87 control word are not switched: kernels never change them. */
void sim_switch(void **save, void *to) __attribute__((visibility("hidden")));
void sim_fiber_entry(void) __attribute__((visibility("hidden")));
void sim_fiber_main(struct sim_lane *l) __attribute__((visibility("hidden"), used, noreturn));
__asm__(".text\n"
        ".globl sim_switch\n.hidden sim_switch\n.type sim_switch,@function\n"
        "sim_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size sim_switch, .-sim_switch\n"
        ".globl sim_fiber_entry\n.hidden sim_fiber_entry\n.type sim_fiber_entry,@function\n"
        "sim_fiber_entry:\n"
        "  movq %rbx, %rdi\n  call sim_fiber_main\n  ud2\n"
        ".size sim_fiber_entry, .-sim_fiber_entry\n");

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
#define SIM_SWITCH_TO_LANE(w, slot) sim_switch(&(w)->sched_sp, (slot)->sp)
#define SIM_SWITCH_TO_SCHED(w, slot) sim_switch(&(slot)->sp, (w)->sched_sp)
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
#define SIM_SWITCH_TO_LANE(w, slot) swapcontext(&(w)->sched_uc, &(slot)->uc)
#define SIM_SWITCH_TO_SCHED(w, slot) swapcontext(&(slot)->uc, &(w)->sched_uc)
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

/* Calls the entry with its ABI: pointers then int32s. One case per arity, so the call
 * passes exactly the kernel's parameters (its pointer types differ only in constness and
 * pointee, which the calling convention does not see). */
static void sim_call_kernel(const struct sim_call *c)
{
    void *const *b = c->bufs;
    const int32_t *i = c->ints;
#define P void *
#define I int32_t
    switch (c->n_bufs * 10 + c->n_ints) {
    case 10: ((void (*)(P))c->fn)(b[0]); break;
    case 11: ((void (*)(P, I))c->fn)(b[0], i[0]); break;
    case 12: ((void (*)(P, I, I))c->fn)(b[0], i[0], i[1]); break;
    case 13: ((void (*)(P, I, I, I))c->fn)(b[0], i[0], i[1], i[2]); break;
    case 14: ((void (*)(P, I, I, I, I))c->fn)(b[0], i[0], i[1], i[2], i[3]); break;
    case 20: ((void (*)(P, P))c->fn)(b[0], b[1]); break;
    case 21: ((void (*)(P, P, I))c->fn)(b[0], b[1], i[0]); break;
    case 22: ((void (*)(P, P, I, I))c->fn)(b[0], b[1], i[0], i[1]); break;
    case 23: ((void (*)(P, P, I, I, I))c->fn)(b[0], b[1], i[0], i[1], i[2]); break;
    case 24: ((void (*)(P, P, I, I, I, I))c->fn)(b[0], b[1], i[0], i[1], i[2], i[3]); break;
    case 30: ((void (*)(P, P, P))c->fn)(b[0], b[1], b[2]); break;
    case 31: ((void (*)(P, P, P, I))c->fn)(b[0], b[1], b[2], i[0]); break;
    case 32: ((void (*)(P, P, P, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1]); break;
    case 33: ((void (*)(P, P, P, I, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1], i[2]); break;
    case 34: ((void (*)(P, P, P, I, I, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1], i[2], i[3]); break;
    case 36: /* sgemm_strided: M, N, K, lda, ldb, ldc */
        ((void (*)(P, P, P, I, I, I, I, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1], i[2], i[3], i[4], i[5]);
        break;
    case 40: ((void (*)(P, P, P, P))c->fn)(b[0], b[1], b[2], b[3]); break;
    case 41: ((void (*)(P, P, P, P, I))c->fn)(b[0], b[1], b[2], b[3], i[0]); break;
    case 42: ((void (*)(P, P, P, P, I, I))c->fn)(b[0], b[1], b[2], b[3], i[0], i[1]); break;
    case 43: ((void (*)(P, P, P, P, I, I, I))c->fn)(b[0], b[1], b[2], b[3], i[0], i[1], i[2]); break;
    case 44: ((void (*)(P, P, P, P, I, I, I, I))c->fn)(b[0], b[1], b[2], b[3], i[0], i[1], i[2], i[3]); break;
    default: break; /* sim_backend.c refuses other arities before launching */
    }
#undef P
#undef I
}

void sim_fiber_main(struct sim_lane *l)
{
    struct sim_worker *w = l->w;
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(NULL, &w->sched_bottom, &w->sched_size);
#endif
    sim_call_kernel(&w->launch->call);
    l->slot->state = SIM_EXITED;
#ifdef SIM_ASAN
    __sanitizer_start_switch_fiber(NULL, w->sched_bottom, w->sched_size); /* frees our fake stack */
#endif
    SIM_SWITCH_TO_SCHED(w, l->slot);
    __builtin_unreachable(); /* an exited lane is never resumed */
}

/* ---- sync points, called from kernel code on the lane's stack ---- */

static void sim_barrier(struct sim_lane_pub *self)
{
    struct sim_lane *l = (struct sim_lane *)self;
    l->slot->state = SIM_AT_BARRIER;
    sim_yield(l);
}

static uint64_t sim_collective(struct sim_lane_pub *self, int op, uint64_t value, int arg,
                               int width)
{
    struct sim_lane *l = (struct sim_lane *)self;
    struct sim_slot *s = l->slot;
    if (op == SIM_OP_VOLATILE && l->w->launch->volatile_yield) {
        sim_yield(l); /* still runnable: any lane may run before this access */
        return 0;
    }
    s->state = SIM_AT_COLL;
    s->op = op;
    s->val = value;
    s->arg = arg;
    s->width = width;
    sim_yield(l);
    return s->res;
}

/* ---- scheduling ---- */

static uint32_t sim_rand_below(struct sim_worker *w, uint32_t n)
{
    w->rng = sim_mix(w->rng);
    return (uint32_t)((w->rng >> 32) * n >> 32);
}

/* Lanes of warp g waiting at a collective; 0 while any lane of it can still run. */
static uint32_t sim_warp_waiting(struct sim_worker *w, uint32_t g)
{
    uint32_t W = (uint32_t)w->info.width, base = g * W, waiting = 0;
    uint32_t cnt = w->n - base < W ? w->n - base : W;
    for (uint32_t j = 0; j < cnt; j++) {
        int st = w->slots[base + j].state;
        if (st == SIM_RUN)
            return 0;
        waiting += st == SIM_AT_COLL;
    }
    return waiting;
}

/* Completes one collective of warp `warp` if its lanes have all stopped. Lanes waiting at
 * a different kind of collective stay waiting (inactive here) for a later round. */
static int sim_resolve_warp(struct sim_worker *w, uint32_t warp)
{
    uint32_t W = (uint32_t)w->info.width, base = warp * W;
    uint32_t cnt = w->n - base < W ? w->n - base : W;
    struct sim_slot *s = w->slots + base;
    uint32_t waiting = sim_warp_waiting(w, warp), pick = 0;
    if (!waiting)
        return 0;
    uint32_t k = w->launch->random ? sim_rand_below(w, waiting) : 0;
    for (uint32_t j = 0; j < cnt; j++)
        if (s[j].state == SIM_AT_COLL && k-- == 0) {
            pick = j;
            break;
        }
    int op = s[pick].op;
    uint64_t active = 0, ballot = 0;
    for (uint32_t j = 0; j < cnt; j++)
        if (s[j].state == SIM_AT_COLL && s[j].op == op) {
            active |= 1ull << j;
            ballot |= (uint64_t)(s[j].val != 0) << j;
        }
    for (uint32_t j = 0; j < cnt; j++) {
        if (!(active >> j & 1))
            continue;
        /* Sub-warp width: a power of two up to the warp width, else the whole warp. */
        uint32_t sw = (uint32_t)s[j].width;
        if (sw == 0 || sw > W || (sw & (sw - 1)))
            sw = W;
        uint32_t seg = j & ~(sw - 1), src = j;
        uint32_t a = (uint32_t)s[j].arg;
        switch (op) {
        case SIM_OP_SHFL_IDX: src = seg + (a & (sw - 1)); break;
        case SIM_OP_SHFL_UP: src = (j - seg) >= a ? j - a : j; break;
        case SIM_OP_SHFL_DOWN: src = (j - seg) + (uint64_t)a < sw ? j + a : j; break;
        case SIM_OP_SHFL_XOR: src = (j ^ a) < seg + sw ? (j ^ a) : j; break;
        default: break;
        }
        switch (op) {
        case SIM_OP_SHFL_IDX:
        case SIM_OP_SHFL_UP:
        case SIM_OP_SHFL_DOWN:
        case SIM_OP_SHFL_XOR:
            /* An inactive or missing source lane yields the caller's own value. */
            s[j].res = src < cnt && (active >> src & 1) ? s[src].val : s[j].val;
            break;
        case SIM_OP_BALLOT: s[j].res = ballot; break;
        case SIM_OP_ANY: s[j].res = ballot != 0; break;
        case SIM_OP_ALL: s[j].res = ballot == active; break;
        default: s[j].res = active; break; /* syncwarp, activemask, volatile access */
        }
    }
    for (uint32_t j = 0; j < cnt; j++)
        if (active >> j & 1)
            s[j].state = SIM_RUN;
    return 1;
}

/* Completes one pending collective in every stopped warp (lockstep) or in a random
 * non-empty subset of them (random). Returns whether any completed. */
static int sim_resolve_warps(struct sim_worker *w, uint32_t n_warps)
{
    int resolved = 0;
    if (!w->launch->random) {
        for (uint32_t g = 0; g < n_warps; g++)
            resolved |= sim_resolve_warp(w, g);
        return resolved;
    }
    uint32_t pending = 0;
    for (uint32_t g = 0; g < n_warps; g++)
        if (sim_warp_waiting(w, g))
            w->order[pending++] = g; /* the pass is over: order[] is free for reuse */
    if (!pending)
        return 0;
    for (uint32_t k = 0; k < pending; k++)
        if (sim_rand_below(w, 2))
            resolved |= sim_resolve_warp(w, w->order[k]);
    if (!resolved)
        resolved = sim_resolve_warp(w, w->order[sim_rand_below(w, pending)]);
    return resolved;
}

static int sim_ensure_regions(struct sim_worker *w, uint32_t n, char *err, size_t errlen)
{
    if (n <= w->n_regions)
        return 0;
    if (w->regions)
        munmap(w->regions, w->n_regions * SIM_REGION_BYTES);
    w->regions = NULL;
    w->n_regions = 0;
    size_t bytes = (size_t)n * SIM_REGION_BYTES, extra = SIM_REGION_BYTES;
    char *m = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
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
    uint32_t *order = slots ? realloc(w->order, n * sizeof *order) : NULL;
    if (slots)
        w->slots = slots;
    if (order)
        w->order = order;
    if (!slots || !order) {
        snprintf(err, errlen, "realloc(scheduler state for %u lanes) failed", n);
        munmap(a, bytes);
        return -1;
    }
    w->regions = a;
    w->n_regions = n;
    /* A stack overflow hits the guard page below the stack, not the lane's descriptor. */
    for (uint32_t i = 0; i < n; i++)
        if (mprotect(sim_stack_bottom(w, i) - w->page, w->page, PROT_NONE) != 0) {
            snprintf(err, errlen, "mprotect(lane stack guard page): %s", strerror(errno));
            munmap(a, bytes);
            w->regions = NULL;
            w->n_regions = 0;
            return -1;
        }
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
    return w;
}

void sim_worker_free(struct sim_worker *w)
{
    if (!w)
        return;
    if (w->regions)
        munmap(w->regions, w->n_regions * SIM_REGION_BYTES);
    free(w->slots);
    free(w->order);
    free(w);
}

int sim_run_block(struct sim_worker *w, const struct sim_launch *L, uint64_t linear, char *err,
                  size_t errlen)
{
    uint32_t n = L->block.x * L->block.y * L->block.z;
    if (sim_ensure_regions(w, n, err, errlen) != 0)
        return -1;
    w->launch = L;
    w->n = n;
    w->info.block_dim = L->block;
    w->info.grid_dim = L->grid;
    w->info.width = L->width;
    w->info.block_idx.x = (unsigned)(linear % L->grid.x);
    w->info.block_idx.y = (unsigned)(linear / L->grid.x % L->grid.y);
    w->info.block_idx.z = (unsigned)(linear / ((uint64_t)L->grid.x * L->grid.y));
    w->rng = sim_mix(L->seed ^ sim_mix(linear));
    for (uint32_t i = 0; i < n; i++) {
        struct sim_lane *l = sim_lane_at(w, i);
        l->pub.rt = &sim_rt_table;
        l->pub.blk = &w->info;
        l->pub.tid.x = i % L->block.x;
        l->pub.tid.y = i / L->block.x % L->block.y;
        l->pub.tid.z = i / (L->block.x * L->block.y);
        l->w = w;
        l->slot = &w->slots[i];
        w->slots[i].state = SIM_RUN;
        sim_lane_prepare(w, i);
    }
    uint32_t W = (uint32_t)L->width, n_warps = (n + W - 1) / W;
    for (;;) {
        /* One pass: every runnable lane runs until its next sync point or exit. */
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            if (w->slots[i].state == SIM_RUN)
                w->order[m++] = i;
        if (L->random)
            for (uint32_t i = m; i > 1; i--) {
                uint32_t j = sim_rand_below(w, i), t = w->order[i - 1];
                w->order[i - 1] = w->order[j];
                w->order[j] = t;
            }
        uint32_t yielded = 0;
        for (uint32_t k = 0; k < m; k++) {
            /* A lane that only yielded may go on at once (random run lengths), so lanes
             * fall out of step with each other. */
            do
                sim_enter_lane(w, w->order[k]);
            while (w->slots[w->order[k]].state == SIM_RUN && sim_rand_below(w, 2));
            yielded += w->slots[w->order[k]].state == SIM_RUN;
        }
        /* Complete the collectives of warps that have stopped, and the barrier only once
         * no lane can run. The random schedule completes a random subset of the waiting
         * warps, so warps drift apart between barriers as they do on hardware. */
        if (sim_resolve_warps(w, n_warps) || yielded)
            continue;
        uint32_t at_barrier = 0;
        for (uint32_t i = 0; i < n; i++)
            if (w->slots[i].state == SIM_AT_BARRIER) {
                w->slots[i].state = SIM_RUN;
                at_barrier++;
            }
        /* Exited lanes do not hold a barrier up, as on current GPUs. */
        if (!at_barrier)
            return 0;
    }
}
