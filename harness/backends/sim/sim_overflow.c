/* SPDX-License-Identifier: MIT */
/* sim_overflow.c: a lane whose locals outgrow its stack (a 96 KiB local array is valid CUDA)
 * hits the guard page below it; kernels are built with -fstack-clash-protection, so a large
 * frame probes its way down instead of jumping over the guard into the next lane's stack. The
 * process still dies of it, as it would have, but first names the thread and the limit on
 * stderr, which the harness shows with the crash. Only async-signal-safe calls in the handler. */
#include "sim_lanes.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lane regions of every live worker, which the handler reads without a lock: a slot is
 * claimed (used), then its bounds set; hi = 0 matches nothing. */
#define SIM_WATCH_SLOTS 512
static atomic_int sim_watch_used[SIM_WATCH_SLOTS];
static _Atomic uintptr_t sim_watch_lo[SIM_WATCH_SLOTS], sim_watch_hi[SIM_WATCH_SLOTS];
static atomic_size_t sim_page;
static pthread_once_t sim_installed = PTHREAD_ONCE_INIT;

/* The calling thread's alternate signal stack, when it is ours, and how many contexts use it. */
#define SIM_ALT_BYTES (64u * 1024u)
static __thread void *sim_alt;
static __thread int sim_alt_users;

static void sim_put(char *buf, size_t *n, size_t cap, const char *s)
{
    while (*s && *n + 1 < cap)
        buf[(*n)++] = *s++;
}

static void sim_put_u(char *buf, size_t *n, size_t cap, unsigned long v)
{
    char digits[24];
    int k = 0;
    do
        digits[k++] = (char)('0' + v % 10);
    while ((v /= 10) && k < (int)sizeof digits);
    while (k > 0 && *n + 1 < cap)
        buf[(*n)++] = digits[--k];
}

static void sim_put_dim3(char *buf, size_t *n, size_t cap, struct sim_dim3 d)
{
    sim_put(buf, n, cap, "(");
    sim_put_u(buf, n, cap, d.x);
    sim_put(buf, n, cap, ",");
    sim_put_u(buf, n, cap, d.y);
    sim_put(buf, n, cap, ",");
    sim_put_u(buf, n, cap, d.z);
    sim_put(buf, n, cap, ")");
}

/* The lane whose guard page holds a, or NULL: the guard is the page after its region's
 * descriptor area. */
static const struct sim_lane_pub *sim_overflowed(uintptr_t a, size_t page)
{
    for (int i = 0; i < SIM_WATCH_SLOTS; i++) {
        uintptr_t lo = atomic_load(&sim_watch_lo[i]), hi = atomic_load(&sim_watch_hi[i]);
        uintptr_t region = a & ~(uintptr_t)(SIM_REGION_BYTES - 1);
        if (a >= lo && a < hi && a - region >= sim_guard_offset(page) && a - region < sim_guard_offset(page) + page)
            return (const struct sim_lane_pub *)SIM_DESC_AT(region);
    }
    return NULL;
}

/* The lane's index in its block, as sim_run_block numbers them. */
static uint32_t sim_lane_index(const struct sim_lane_pub *lane)
{
    const struct sim_dim3 t = lane->tid, d = lane->blk.block_dim;
    return t.x + d.x * (t.y + d.y * t.z);
}

static void sim_overflow_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    size_t page = atomic_load(&sim_page), n = 0;
    uintptr_t a = (uintptr_t)si->si_addr;
    const struct sim_lane_pub *lane = sim_overflowed(a, page);
    if (lane) {
        char msg[512];
        sim_put(msg, &n, sizeof msg, "sim: thread ");
        sim_put_dim3(msg, &n, sizeof msg, lane->tid);
        sim_put(msg, &n, sizeof msg, " of block ");
        sim_put_dim3(msg, &n, sizeof msg, lane->blk.block_idx);
        /* The worker's output line the harness shows with a crash is 160 bytes at most. */
        sim_put(msg, &n, sizeof msg, " overflowed its ");
        sim_put_u(msg, &n, sizeof msg, sim_stack_room(sim_stack_colour(sim_lane_index(lane)), page) / 1024);
        sim_put(msg, &n, sizeof msg, " KiB stack, an emulator limit (");
        sim_put_u(msg, &n, sizeof msg, sim_stack_room(SIM_STACK_COLOUR_MAX, page) / 1024);
        sim_put(msg, &n, sizeof msg, "-");
        sim_put_u(msg, &n, sizeof msg, sim_stack_room(0, page) / 1024);
        sim_put(msg, &n, sizeof msg, " KiB a thread; CUDA allows 512 KiB of locals)\n");
        ssize_t w = write(STDERR_FILENO, msg, n);
        (void)w;
    }
    /* SA_RESETHAND put the default action back: on return the access faults again and the
     * process dies of it, as it would have without this handler. */
}

/* Once per process, and only where nothing else (a sanitizer) handles SIGSEGV already. */
static void sim_install(void)
{
    struct sigaction sa, now;
    if (sigaction(SIGSEGV, NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL)
        return;
    atomic_store(&sim_page, (size_t)sysconf(_SC_PAGESIZE));
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sim_overflow_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
}

void sim_overflow_arm(void)
{
    pthread_once(&sim_installed, sim_install);
    if (sim_alt_users++ > 0)
        return;
    stack_t now;
    /* A thread that has an alternate stack already (someone else's) keeps it. */
    if (sigaltstack(NULL, &now) != 0 || !(now.ss_flags & SS_DISABLE))
        return;
    stack_t ss = {.ss_sp = malloc(SIM_ALT_BYTES), .ss_size = SIM_ALT_BYTES, .ss_flags = 0};
    if (ss.ss_sp && sigaltstack(&ss, NULL) == 0)
        sim_alt = ss.ss_sp;
    else
        free(ss.ss_sp);
}

void sim_overflow_disarm(void)
{
    if (sim_alt_users == 0 || --sim_alt_users > 0 || !sim_alt)
        return;
    stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    if (sigaltstack(&off, NULL) == 0)
        free(sim_alt);
    sim_alt = NULL;
}

int sim_overflow_watch(int slot, uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; slot < 0 && i < SIM_WATCH_SLOTS; i++) {
        int unused = 0;
        if (atomic_compare_exchange_strong(&sim_watch_used[i], &unused, 1))
            slot = i;
    }
    if (slot < 0)
        return -1;
    /* Matching nothing while it changes, so the handler never pairs a new bound with an old. */
    atomic_store(&sim_watch_hi[slot], 0);
    atomic_store(&sim_watch_lo[slot], lo);
    atomic_store(&sim_watch_hi[slot], hi);
    return slot;
}

void sim_overflow_unwatch(int slot)
{
    if (slot < 0)
        return;
    atomic_store(&sim_watch_hi[slot], 0);
    atomic_store(&sim_watch_used[slot], 0);
}
