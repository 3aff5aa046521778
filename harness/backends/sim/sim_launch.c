/* SPDX-License-Identifier: MIT */
/* sim_launch.c: what one launch of the sim backend needs before it runs and reports after:
 * the kernel's arguments (in its own order for a wrapped entry), the ranges its accesses are
 * checked against, its schedule and seed, and the workers' fault records merged. It runs
 * nothing itself: sim_backend.c hands the prepared launch to the workers. */
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

/* The arguments in the kernel's own order (a->params, else the op ABI: buffers then ints),
 * checked against the wrapped entry's declared parameters. */
static int sim_wrapped_args(struct hb_ctx *c, const hb_kern *k, const struct hb_args *a, struct sim_call *call)
{
    int n = a->n_params > 0 ? a->n_params : a->n_bufs + a->n_ints;
    char got[HB_MAX_PARAMS + 1] = "";
    if (n > SIM_MAX_ARGS) {
        sim_err(c, "launch: %d arguments, the emulator passes at most %d", n, SIM_MAX_ARGS);
        return HB_ERROR;
    }
    for (int i = 0; i < n; i++) {
        int kind = a->n_params > 0 ? a->params[i].kind : i < a->n_bufs ? HB_PARAM_BUF : HB_PARAM_I32;
        int at = a->n_params > 0 ? a->params[i].index : i < a->n_bufs ? i : i - a->n_bufs;
        struct sim_arg *v = &call->args[i];
        if (kind == HB_PARAM_BUF && at < a->n_bufs)
            v->kind = SIM_ARG_PTR, v->u.p = a->bufs[at]->data + a->offsets[at], got[i] = 'P';
        else if ((kind == HB_PARAM_I32 || kind == HB_PARAM_I64) && at < a->n_ints) /* converted to its type */
            v->kind = SIM_ARG_I32, v->u.i = a->ints[at], got[i] = 'I';
        else if (kind == HB_PARAM_F32 && at < a->n_floats)
            v->kind = SIM_ARG_F32, v->u.f = a->floats[at], got[i] = 'F';
        else {
            sim_err(c, "launch: parameter %d: kind %d, index %d: no such argument", i + 1, kind, at);
            return HB_ERROR;
        }
    }
    if (strcmp(got, k->kinds) != 0) {
        sim_err(c,
                "launch: the kernel's parameters are (%s), the launch passes (%s) "
                "(P pointer, I integer, F floating point)",
                k->kinds, got);
        return HB_ERROR;
    }
    call->wrapped = 1;
    call->n_args = n;
    return HB_OK;
}

/* A plain C entry takes the op ABI: every buffer, then every int, in order. */
static int sim_plain_args(struct hb_ctx *c, const struct hb_args *a, struct sim_call *call)
{
    for (int i = 0; i < a->n_params; i++) {
        int want = i < a->n_bufs ? HB_PARAM_BUF : HB_PARAM_I32;
        int at = i < a->n_bufs ? i : i - a->n_bufs;
        if (a->params[i].kind != want || a->params[i].index != at || a->n_params != a->n_bufs + a->n_ints) {
            sim_err(c, "launch: a declared parameter order needs the kernel loaded with it");
            return HB_ERROR;
        }
    }
    if (a->n_bufs < 1 || a->n_bufs > SIM_MAX_BUFS || a->n_ints < 0 || a->n_ints > SIM_MAX_INTS) {
        sim_err(c, "launch: %d buffers and %d integers: the emulator calls 1-%d and 0-%d", a->n_bufs, a->n_ints,
                SIM_MAX_BUFS, SIM_MAX_INTS);
        return HB_UNSUPPORTED;
    }
    for (int i = 0; i < a->n_bufs; i++)
        call->bufs[i] = a->bufs[i]->data + a->offsets[i];
    for (int i = 0; i < a->n_ints; i++)
        call->ints[i] = a->ints[i];
    call->n_bufs = a->n_bufs;
    call->n_ints = a->n_ints;
    return HB_OK;
}

/* What kernel code may touch: each buffer argument's data (the whole rest of its allocation
 * from a core that gives no sizes) and the kernel's image; stacks and shared memory are the
 * lanes' own (sim_sched.c). */
static int sim_ranges(struct hb_ctx *c, const hb_kern *k, const struct hb_args *a, struct sim_launch *L)
{
    int sized = a->n_params > 0;
    for (int i = 0; i < a->n_bufs; i++)
        sized |= a->bytes[i] != 0;
    if (a->n_bufs < 0 || a->n_bufs > SIM_MAX_VIEWS || a->n_bufs >= SIM_MAX_RANGES) {
        sim_err(c, "launch: %d buffers: the emulator takes at most %d", a->n_bufs, SIM_MAX_VIEWS);
        return HB_UNSUPPORTED;
    }
    for (int i = 0; i < a->n_bufs; i++) {
        const hb_buf *b = a->bufs[i];
        size_t bytes = sized ? a->bytes[i] : b ? b->size - a->offsets[i] : 0;
        if (!b || a->offsets[i] > b->size || bytes > b->size - a->offsets[i]) {
            sim_err(c, "launch: buffer argument %d: [%zu, +%zu) outside its allocation", i, a->offsets[i], bytes);
            return HB_ERROR;
        }
        uintptr_t lo = (uintptr_t)(b->data + a->offsets[i]);
        L->bounds.r[i] = (struct sim_range){lo, lo + bytes};
        L->views[i] = (struct sim_view){lo, lo + bytes, (uintptr_t)b->map, (uintptr_t)b->map + b->map_bytes};
    }
    L->n_views = a->n_bufs;
    L->bounds.r[a->n_bufs] = k->image;
    L->bounds.n = a->n_bufs + 1;
    return HB_OK;
}

/* The launch's schedule and seed: under mixed, a case's first launch is lockstep and every
 * later one random, so the core's repeat check sees any result that depends on the order.
 * Seeds come from SEED, the case's shape and the launch's number in it, so rerunning one
 * case alone reproduces them. */
static void sim_schedule(struct hb_ctx *c, const hb_kern *k, const struct hb_args *a, struct sim_launch *L)
{
    uint64_t key = sim_mix(((uint64_t)L->grid.x << 42) ^ ((uint64_t)L->grid.y << 21) ^ L->grid.z);
    for (int i = 0; i < a->n_bufs; i++)
        key = sim_mix(key ^ a->bytes[i]);
    for (int i = 0; i < a->n_ints; i++)
        key = sim_mix(key ^ (uint32_t)a->ints[i]);
    for (int i = 0; i < a->n_floats; i++) {
        uint32_t f;
        memcpy(&f, &a->floats[i], sizeof f);
        key = sim_mix(key ^ f);
    }
    uint64_t n = (uint64_t)(a->repeat > 0 ? a->repeat : 0);
    L->random = c->mode == SIM_RANDOM || (c->mode == SIM_MIXED && n > 0);
    L->volatile_yield = L->random && k->dialect == SIM_DIALECT_CUDA;
    L->seed = sim_mix(c->seed ^ sim_mix(key ^ sim_mix(n)));
}

/* The workers' fault records merged: counts summed, the first from the lowest block. */
void sim_launch_faults(struct hb_ctx *c)
{
    for (int write = 0; write < 2; write++) {
        struct hb_fault *f = &c->faults[write];
        const struct sim_fault_rec *first = NULL;
        memset(f, 0, sizeof *f);
        f->arg = -1;
        for (int i = 0; i < c->n_workers; i++) {
            const struct sim_fault_rec *r = sim_worker_faults(c->workers[i], write);
            f->count += r->count;
            if (r->count && (!first || r->block < first->block))
                first = r;
        }
        if (!first)
            continue;
        f->arg = first->arg;
        f->offset = first->offset;
        memcpy(f->block, &first->block_idx, sizeof f->block);
        memcpy(f->thread, &first->tid, sizeof f->thread);
    }
}

int sim_launch_prepare(struct hb_ctx *c, const hb_kern *k, const unsigned grid[3], const struct hb_args *a,
                       struct sim_launch *L)
{
    int rc = sim_ranges(c, k, a, L);
    if (rc == HB_OK)
        rc = k->wrapped ? sim_wrapped_args(c, k, a, &L->call) : sim_plain_args(c, a, &L->call);
    if (rc != HB_OK)
        return rc;
    L->call.fn = k->fn;
    L->grid = (struct sim_dim3){grid[0], grid[1], grid[2]};
    L->block = k->block;
    L->width = c->width;
    sim_schedule(c, k, a, L);
    return HB_OK;
}
