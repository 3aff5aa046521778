/* SPDX-License-Identifier: MIT */
/* sim_check.c: the slow path of the emulator's exact access checks, taken only when the
 * prelude's hooks (sim_hooks.h) find an access outside the launch's ranges: which buffer
 * argument it belongs to and where, and whether it lands in memory the emulator owns. The
 * fast path, and the decision to record or stop, live elsewhere (sim_hooks.h, sim_sched.c). */
#include <stdio.h>

#include "sim_sched.h"

static int sim_in(uintptr_t a, unsigned n, uintptr_t lo, uintptr_t hi) { return a >= lo && a + n <= hi; }

int sim_check_inside(const struct sim_lane_pub *lane, uintptr_t a, unsigned n)
{
    uintptr_t region = (uintptr_t)lane & ~(uintptr_t)(SIM_REGION_BYTES - 1);
    if (sim_in(a, n, region, region + SIM_REGION_BYTES) || sim_in(a, n, lane->shared.lo, lane->shared.hi))
        return 1;
    for (int i = 0; i < lane->bounds->n; i++)
        if (sim_in(a, n, lane->bounds->r[i].lo, lane->bounds->r[i].hi))
            return 1;
    return 0;
}

/* Distance from [a, a+n) to [lo, hi): 0 when they overlap. */
static uintptr_t sim_distance(uintptr_t a, unsigned n, uintptr_t lo, uintptr_t hi)
{
    if (a + n <= lo)
        return lo - (a + n) + 1;
    return a >= hi ? a - hi + 1 : 0;
}

int sim_check_attribute(const struct sim_launch *l, uintptr_t a, unsigned n, int *arg, long long *offset)
{
    uintptr_t best = UINTPTR_MAX;
    *arg = -1;
    *offset = 0;
    /* Arguments may share an allocation: the access belongs to the nearest one's data. */
    for (int i = 0; i < l->n_views; i++) {
        const struct sim_view *v = &l->views[i];
        if (!sim_in(a, n, v->own_lo, v->own_hi))
            continue;
        uintptr_t d = sim_distance(a, n, v->data_lo, v->data_hi);
        if (d < best) {
            best = d;
            *arg = i;
            *offset = (long long)(a - v->data_lo);
        }
    }
    return *arg >= 0;
}

void sim_check_where(int arg, long long offset, uintptr_t a, char *out, size_t len)
{
    if (arg >= 0)
        snprintf(out, len, "buffer argument %d, byte offset %lld", arg, offset);
    else
        snprintf(out, len, "address %#llx (no buffer argument)", (unsigned long long)a);
}
