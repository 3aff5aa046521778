/* SPDX-License-Identifier: MIT */
/* sim_warp.c: completes warp collectives (shuffles, votes, __syncwarp, volatile lockstep)
 * once a warp's lanes have all stopped, in lane order or, under the random schedule, for a
 * random subset of the waiting warps so that warps drift apart. Runs on the scheduler's side
 * of the switch; it never runs kernel code. */
#include "sim_lanes.h"

#include <string.h>

/* Lanes of warp g waiting at a collective; 0 while any lane of it can still run. */
static uint32_t sim_warp_waiting(const struct sim_worker *w, uint32_t g)
{
    return w->warp_run[g] ? 0 : w->warp_coll[g];
}

/* A sub-warp width as the collectives take it: a power of two up to the warp width, else
 * the whole warp. */
static uint32_t sim_sub_width(int width, uint32_t W)
{
    uint32_t sw = (uint32_t)width;
    return sw == 0 || sw > W || (sw & (sw - 1)) ? W : sw;
}

/* The lane that lane j of a warp reads a shuffle from, in segments of sw lanes; past the
 * warp's last lane, or itself, means its own value. */
static inline uint32_t sim_shuffle_source(int op, uint32_t j, uint32_t a, uint32_t sw)
{
    uint32_t seg = j & ~(sw - 1);
    switch (op) {
    case SIM_OP_SHFL_IDX: return seg + (a & (sw - 1));
    case SIM_OP_SHFL_UP: return (j - seg) >= a ? j - a : j;
    case SIM_OP_SHFL_DOWN: return (j - seg) + (uint64_t)a < sw ? j + a : j;
    default: return (j ^ a) < seg + sw ? (j ^ a) : j; /* SIM_OP_SHFL_XOR */
    }
}

/* Whether lane j waits at the same shuffle as the warp's lane 0 (its kind, offset, width). */
#define SIM_SAME_SHUFFLE(s, j, op, arg, width) ((s)[j].op == (op) && (s)[j].arg == (arg) && (s)[j].width == (width))

/* The usual shuffle: every lane of the warp waits at it with the same offset and width (a
 * butterfly step). Completed without the general case's per-lane tests of state and kind, in
 * one pass that checks each lane and writes its result (reduce_generic's unchecked launch 5%
 * sooner); the results and the lanes made ready, in lane order, are the general case's.
 * Returns 0 for any other collective: the results written by then are the general case's to
 * rewrite, and no lane reads its result before it does. */
static int sim_resolve_uniform_shuffle(struct sim_worker *w, uint32_t warp, struct sim_slot *s, uint32_t cnt)
{
    int op = s[0].op, arg = s[0].arg, width = s[0].width;
    if (op < SIM_OP_SHFL_IDX || op > SIM_OP_SHFL_XOR)
        return 0;
    uint32_t sw = sim_sub_width(width, (uint32_t)w->info.width), a = (uint32_t)arg;
    if (op == SIM_OP_SHFL_XOR && a < sw) {
        /* A butterfly step: the source lane never leaves the segment. */
        for (uint32_t j = 0; j < cnt; j++) {
            if (!SIM_SAME_SHUFFLE(s, j, op, arg, width))
                return 0;
            s[j].res = (j ^ a) < cnt ? s[j ^ a].val : s[j].val;
        }
    } else {
        for (uint32_t j = 0; j < cnt; j++) {
            if (!SIM_SAME_SHUFFLE(s, j, op, arg, width))
                return 0;
            uint32_t src = sim_shuffle_source(op, j, a, sw);
            s[j].res = src < cnt ? s[src].val : s[j].val;
        }
    }
    uint32_t base = warp * (uint32_t)w->info.width, *ready = w->ready + w->n_ready;
    w->warp_coll[warp] -= cnt;
    w->warp_run[warp] += cnt;
    w->n_ready += cnt;
    memset(w->state + base, SIM_RUN, cnt);
    for (uint32_t j = 0; j < cnt; j++)
        ready[j] = base + j;
    return 1;
}

/* Completes one collective of warp `warp` if its lanes have all stopped. Lanes waiting at
 * a different kind of collective stay waiting (inactive here) for a later round. */
static int sim_resolve_warp(struct sim_worker *w, uint32_t warp)
{
    uint32_t W = (uint32_t)w->info.width, base = warp * W;
    uint32_t cnt = w->n - base < W ? w->n - base : W;
    struct sim_slot *s = w->slots + base;
    const uint8_t *state = w->state + base;
    uint32_t waiting = sim_warp_waiting(w, warp), pick = 0;
    if (!waiting)
        return 0;
    uint32_t k = w->launch->random ? sim_rand_below(w, waiting) : 0;
    if (waiting == cnt && sim_resolve_uniform_shuffle(w, warp, s, cnt))
        return 1;
    for (uint32_t j = 0; j < cnt; j++)
        if (state[j] == SIM_AT_COLL && k-- == 0) {
            pick = j;
            break;
        }
    int op = s[pick].op;
    uint64_t active = 0, ballot = 0;
    for (uint32_t j = 0; j < cnt; j++)
        if (state[j] == SIM_AT_COLL && s[j].op == op) {
            active |= 1ull << j;
            ballot |= (uint64_t)(s[j].val != 0) << j;
        }
    for (uint32_t j = 0; j < cnt; j++) {
        if (!(active >> j & 1))
            continue;
        uint32_t src = j;
        if (op >= SIM_OP_SHFL_IDX && op <= SIM_OP_SHFL_XOR)
            src = sim_shuffle_source(op, j, (uint32_t)s[j].arg, sim_sub_width(s[j].width, W));
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
    w->warp_coll[warp] -= (uint32_t)__builtin_popcountll(active);
    for (uint32_t j = 0; j < cnt; j++)
        if (active >> j & 1)
            sim_make_ready(w, base + j, warp);
    return 1;
}

int sim_resolve_warps(struct sim_worker *w, uint32_t n_warps)
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
