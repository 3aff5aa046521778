/* SPDX-License-Identifier: MIT */
/* sim_hooks.h (part of sim_prelude.h): exact access checking. Kernels are compiled with
 * ThreadSanitizer's instrumentation (GCC's; clang's for the shipped kernels where it is
 * installed, backend.mk) and no TSan runtime, so every plain load and store of
 * kernel code goes through a __tsan_* hook below: it passes the lane's own stack, the block's
 * shared memory and the launch's ranges, and reports anything else to the runtime
 * (sim_sched.c). Volatile accesses are also warp sync points. Registers, libc and inline
 * assembly are not seen. */
#ifndef SIM_HOOKS_H
#define SIM_HOOKS_H

#define SIM_NO_TSAN __attribute__((no_sanitize_thread, noinline))

/* Off outside launches: constructors run by dlopen are not on a lane's stack. */
static int sim_live;
extern "C" __attribute__((visibility("default"))) SIM_NO_TSAN void sim_kernel_set_live(int on) { sim_live = on; }

/* Runs `then` (a return) when [a, a + n) lies in one of the launch's ranges. */
#define SIM_IN_RANGES_THEN(s, a, n, then)                                                                              \
    do {                                                                                                               \
        const sim_bounds *sim_b_ = (s)->bounds;                                                                        \
        for (int sim_i_ = 0; sim_i_ < sim_b_->n; sim_i_++)                                                             \
            if ((a) >= sim_b_->r[sim_i_].lo && (a) + (n) <= sim_b_->r[sim_i_].hi)                                      \
                then;                                                                                                  \
    } while (0)

/* Runs `then` (a return) when [a, a + n) lies inside one region a lane may touch: the block's
 * shared memory first (tiled kernels' inner loops), then the lane's own stack (locals kept in
 * memory), then one of the launch's ranges; the ranges first when ranges_first (a constant),
 * for addresses the merging pass saw come from a kernel's pointer argument. A macro, not a
 * function returning a flag: the hot path below compiles to tighter code this way (an
 * int-returning helper made the checked sgemm_naive's code a quarter longer). */
#define SIM_IN_REGION_THEN(s, sp, a, n, ranges_first, then)                                                            \
    do {                                                                                                               \
        if (ranges_first)                                                                                              \
            SIM_IN_RANGES_THEN(s, a, n, then);                                                                         \
        if ((a) >= (s)->shared.lo && (a) + (n) <= (s)->shared.hi)                                                      \
            then;                                                                                                      \
        if ((((a) ^ (sp)) | (((a) + (n)-1) ^ (sp))) < SIM_REGION_BYTES)                                                \
            then;                                                                                                      \
        if (!(ranges_first))                                                                                           \
            SIM_IN_RANGES_THEN(s, a, n, then);                                                                         \
    } while (0)

/* Not a runtime flag: a hint to sim_check, masked off before anything reaches the runtime. */
#define SIM_ACC_FROM_ARGUMENT 0x100

/* The hot path: a handful of compares, the rest to the runtime. */
static inline __attribute__((always_inline, no_sanitize_thread)) void sim_check(uintptr_t a, unsigned n, int flags)
{
    if (__builtin_expect(!sim_live, 0))
        return;
    uintptr_t sp = sim_sp();
    sim_lane_pub *s = (sim_lane_pub *)SIM_DESC_AT(sp & ~(uintptr_t)(SIM_REGION_BYTES - 1));
    if (__builtin_expect(!((flags & SIM_ACC_ALIGNED) && (a & (n - 1))), 1))
        SIM_IN_REGION_THEN(s, sp, a, n, flags & SIM_ACC_FROM_ARGUMENT, return );
    s->rt->fault(s, a, n, flags & ~SIM_ACC_FROM_ARGUMENT);
}

/* Vector types (sim_vec.h) check their own alignment, which may be below their size. */
static inline SIM_NO_TSAN void sim_check_vec(const void *p, unsigned size, unsigned align, int write)
{
    uintptr_t a = (uintptr_t)p;
    if (a & (align - 1))
        sim_check(a, align, write | SIM_ACC_ALIGNED);
    else
        sim_check(a, size, write);
}

/* g++ says it instruments with __SANITIZE_THREAD__, clang with __has_feature. */
#if defined(__SANITIZE_THREAD__)
#define SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIM_TSAN 1
#endif
#endif

#if defined(SIM_TSAN)
/* Inlinable: clang builds of the shipped kernels inline them into kernel code once their
 * instrumentation is in (backend.mk); g++ inserts its calls after inlining and never does. */
#define SIM_HOOK extern "C" __attribute__((no_sanitize_thread, visibility("hidden"))) void
#define SIM_TSAN_PLAIN(kind, n, flags)                                                                                 \
    SIM_HOOK __tsan_##kind##n(void *p) { sim_check((uintptr_t)p, n, flags); }
#define SIM_TSAN_VOLATILE(kind, n, flags)                                                                              \
    SIM_HOOK __tsan_volatile_##kind##n(void *p)                                                                        \
    {                                                                                                                  \
        sim_check((uintptr_t)p, n, flags);                                                                             \
        sim_coll(SIM_OP_VOLATILE, 0, 0, 0);                                                                            \
    }
#define SIM_TSAN_SIZES(m, kind, flags)                                                                                 \
    m(kind, 1, flags) m(kind, 2, flags) m(kind, 4, flags) m(kind, 8, flags) m(kind, 16, flags)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, read, SIM_ACC_ALIGNED)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, write, SIM_ACC_ALIGNED | SIM_ACC_WRITE)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, unaligned_read, 0)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, unaligned_write, SIM_ACC_WRITE)
SIM_TSAN_SIZES(SIM_TSAN_VOLATILE, read, SIM_ACC_ALIGNED)
SIM_TSAN_SIZES(SIM_TSAN_VOLATILE, write, SIM_ACC_ALIGNED | SIM_ACC_WRITE)
/* A group of accesses merged into one span (sim_merge_checks.cc): non-zero when the span is in
 * one region and its first address is aligned to align, so each access would pass its own
 * check; zero sends the code to its copy that checks each access. Faults nothing itself. */
extern "C" __attribute__((no_sanitize_thread, visibility("hidden"))) int __sim_span_ok(uintptr_t a, uintptr_t n,
                                                                                       uintptr_t align)
{
    if (__builtin_expect(!sim_live, 0))
        return 1;
    uintptr_t sp = sim_sp();
    const sim_lane_pub *s = (const sim_lane_pub *)SIM_DESC_AT(sp & ~(uintptr_t)(SIM_REGION_BYTES - 1));
    if (a & (align - 1))
        return 0;
    SIM_IN_REGION_THEN(s, sp, a, n, 0, return 1);
    return 0;
}
/* A plain access whose address the merging pass derived from a kernel's pointer argument
 * (global memory but for a shared or local pointer passed in): the same check, the launch's
 * ranges tested first. flags: the SIM_ACC_* of the hook it replaces. */
SIM_HOOK __sim_check_argument(void *p, unsigned long n, int flags)
{
    sim_check((uintptr_t)p, (unsigned)n, flags | SIM_ACC_FROM_ARGUMENT);
}
SIM_HOOK __tsan_init(void) {}
SIM_HOOK __tsan_read_range(void *p, unsigned long n)
{
    if (n)
        sim_check((uintptr_t)p, (unsigned)n, 0);
}
SIM_HOOK __tsan_write_range(void *p, unsigned long n)
{
    if (n)
        sim_check((uintptr_t)p, (unsigned)n, SIM_ACC_WRITE);
}
/* Virtual calls: the vtable pointer lives in the object, whose accesses are checked. */
SIM_HOOK __tsan_vptr_read(void **) {}
SIM_HOOK __tsan_vptr_update(void **, void *) {}
#endif

#endif
