/* SPDX-License-Identifier: MIT */
/* verify.c: see verify.h. What testbed.c did with the outputs before issue 27, moved to the one
 * process that holds the references: a kernel runs in its worker and can change anything there,
 * figures and records included, but not what the parent computes from the bytes it reads. */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "guard.h"
#include "text.h"
#include "types.h"

void vfy_begin(struct vfy_case *v, const struct kern_desc *k, const struct case_data *d, const struct rep_result *row)
{
    memset(v, 0, sizeof *v);
    v->k = k, v->d = d, v->op = op_get(d->c->op);
    v->r = *row;
    v->op->layout(d, k, &v->lay);
    v->first_out = -1;
    for (int b = 0; b < v->lay.n_bufs; b++) {
        if (v->lay.role[b] != OP_ROLE_OUT)
            continue;
        if (v->first_out < 0)
            v->first_out = b;
        v->out_bytes += v->lay.bytes[b];
        v->got[b] = xcalloc(v->lay.bytes[b] + 8, 1);
    }
    /* As the worker sees it: a grid the case cannot have is its API error, and the row then
     * says nothing of the launch. */
    unsigned grid[3] = {1, 1, 1};
    struct hb_err err = {{0}};
    if (k && kern_grid(k, d->c, grid, &err))
        return;
    if (k)
        v->r.threads = (uint64_t)grid[0] * grid[1] * grid[2] * k->block[0] * k->block[1] * k->block[2];
    if (v->op->note)
        v->op->note(d, k, &v->r);
}

void *vfy_dest(struct vfy_case *v, size_t at, size_t *room)
{
    for (int b = 0; b < v->lay.n_bufs; b++) {
        if (v->lay.role[b] != OP_ROLE_OUT)
            continue;
        if (at < v->lay.bytes[b]) {
            *room = v->lay.bytes[b] - at;
            return (char *)v->got[b] + at;
        }
        at -= v->lay.bytes[b];
    }
    *room = 0;
    return NULL;
}

/* A damaged band's offset from its buffer's data: inside the buffer's image. */
static int vfy_in_image(const struct vfy_case *v, long arg, long offset)
{
    long band = (long)grd_band(), image = (long)grd_image_bytes(v->lay.bytes[arg]);
    return offset >= -band && offset < image - band;
}

int vfy_accepts(const struct vfy_case *v, const struct msg *m, struct hb_err *err)
{
    if (m->guard_arg >= v->lay.n_bufs || m->fault_arg >= v->lay.n_bufs ||
        (m->guard_arg >= 0 && !vfy_in_image(v, m->guard_arg, m->guard_offset))) {
        err_set(err, "launch naming buffer %ld (offset %ld) or %ld of a case with %d", m->guard_arg, m->guard_offset,
                m->fault_arg, v->lay.n_bufs);
        return 0;
    }
    if (m->fault_arg >= 0 && m->launch) {
        err_set(err, "faults reported for launch %d (only the first is checked exactly)", m->launch);
        return 0;
    }
    return 1;
}

/* Every buffer's data as the op's compare takes it: the outputs as this launch left them, the
 * others as the parent laid them out (a compare reads outputs only). */
static void vfy_view(const struct vfy_case *v, const void *got[HB_MAX_BUF_ARGS])
{
    for (int b = 0; b < v->lay.n_bufs; b++)
        got[b] = v->lay.role[b] == OP_ROLE_OUT ? v->got[b] : v->lay.data[b];
}

/* A repeat of a kernel that declared deterministic = no differs from the first launch: it is
 * judged against the reference on its own (its classes join the row's, its ratio if worse),
 * and the ULP spread between the two, by element type, is kept. verdict.c then decides what the
 * difference means. */
static void vfy_repeat_within(struct vfy_case *v, const void *const got[], struct cmp_result *cmp)
{
    for (int b = 0; b < v->lay.n_bufs; b++) {
        enum hb_type ty = (enum hb_type)v->lay.type[b];
        size_t size = ty_get(ty)->size, n = v->lay.role[b] == OP_ROLE_OUT ? v->lay.bytes[b] / size : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t ulp = ty_ulp(ty, (const char *)got[b] + i * size, (const char *)v->first[b] + i * size);
            if (ulp > cmp->repeat_ulp)
                cmp->repeat_ulp = ulp;
        }
    }
    struct cmp_result *again = xcalloc(1, sizeof *again);
    cmp_init(again);
    v->op->compare(v->d, v->k, got, again);
    cmp->classes |= again->classes;
    cmp->suspect |= again->suspect;
    if (again->max_ratio * cmp->threshold > cmp->max_ratio * again->threshold)
        cmp->max_ratio = again->max_ratio, cmp->threshold = again->threshold;
    free(again);
}

/* A repeat of a kernel that did not declare deterministic = no differs from the first launch:
 * whether this launch, like the first and every repeat that differed before it, is within the
 * bound by itself. Only that row's message changes (verdict.c names the key); its classes and
 * figures stay the first launch's. */
static void vfy_repeat_bound(struct vfy_case *v, const void *const got[], int first_difference, struct cmp_result *cmp)
{
    if (!first_difference && !cmp->repeats_within)
        return;
    int within = !(cmp->classes & (CLS_WRONG | CLS_NAN | CLS_UNWRITTEN)) && !cmp->suspect;
    if (within) {
        struct cmp_result *again = xcalloc(1, sizeof *again);
        cmp_init(again);
        v->op->compare(v->d, v->k, got, again);
        within = !again->classes && !again->suspect;
        free(again);
    }
    cmp->repeats_within = within;
}

/* Where the worker saw a write outside the data: the backend's first fault (first launch), then
 * a damaged guard band, then the op's padding, whichever comes first names the row's oob. */
static void vfy_observed(struct vfy_case *v, const struct msg *m)
{
    struct cmp_result *cmp = &v->r.cmp;
    cmp->classes |= m->seen;
    if (cmp->oob_buffer < 0 && m->fault_arg >= 0)
        cmp->oob_buffer = m->fault_arg, cmp->oob_offset = m->fault_offset;
    if (cmp->oob_buffer < 0 && m->guard_arg >= 0)
        cmp->oob_buffer = m->guard_arg, cmp->oob_offset = m->guard_offset;
    if (v->op->check_padding && v->first_out >= 0)
        v->op->check_padding(v->d, v->k, v->got[v->first_out], v->first_out, cmp);
}

/* Elements of pure outputs that neither the first launch nor this odd repeat wrote: the first's
 * poison then, the other poison (which this one started from) now. Counted, and with `restore`
 * set back to the first launch's bits. */
static long vfy_written_by_neither(struct vfy_case *v, int restore)
{
    long never = 0;
    for (int b = 0; b < v->lay.n_bufs; b++) {
        enum hb_type type = (enum hb_type)v->lay.type[b];
        const struct ty_info *ty = ty_get(type);
        size_t n = v->lay.pure_out[b] ? v->lay.bytes[b] / ty->size : 0;
        if (n && !memcmp(v->got[b], v->first[b], v->lay.bytes[b]))
            continue; /* the same bits: none of them (outputs run to GiBs) */
        for (size_t e = 0; e < n; e++) {
            char *got = (char *)v->got[b] + e * ty->size;
            const char *first = (const char *)v->first[b] + e * ty->size;
            if (ty_bits(type, got) != ty->poison2 || ty_bits(type, first) != ty->poison)
                continue;
            never++;
            if (restore)
                memcpy(got, first, ty->size);
        }
    }
    return never;
}

/* An odd repeat started its pure outputs as the other poison (testbed.c): an element that held
 * the first poison after the first launch and holds the other now was never written. That is no
 * difference between launches (vfy_written_by_neither puts the first launch's bits back), and
 * the op counts those the first comparison let pass (where the reference holds the poison's
 * value) as unwritten, once per case. */
static void vfy_never_written(struct vfy_case *v, const struct msg *m)
{
    if (!(m->launch % 2) || !vfy_written_by_neither(v, 0))
        return;
    if (!v->never_judged && v->op->never_written) {
        const void *first[HB_MAX_BUF_ARGS], *again[HB_MAX_BUF_ARGS];
        for (int b = 0; b < v->lay.n_bufs; b++) {
            int out = v->lay.role[b] == OP_ROLE_OUT;
            first[b] = out ? v->first[b] : v->lay.data[b], again[b] = out ? v->got[b] : v->lay.data[b];
        }
        v->op->never_written(v->d, v->k, first, again, &v->r.cmp);
    }
    v->never_judged = 1;
    vfy_written_by_neither(v, 1);
}

/* The first launch: every output hashed (one hash over them all, in buffer order), compared,
 * and kept for the repeats. */
static void vfy_first(struct vfy_case *v, const void *const got[])
{
    uint64_t h = hb_fnv1a(NULL, 0);
    for (int b = 0; b < v->lay.n_bufs; b++)
        if (v->lay.role[b] == OP_ROLE_OUT)
            h = hb_fnv1a_from(h, got[b], v->lay.bytes[b]);
    v->r.output_hash = h;
    v->op->compare(v->d, v->k, got, &v->r.cmp);
    for (int b = 0; b < v->lay.n_bufs; b++) {
        if (v->lay.role[b] != OP_ROLE_OUT)
            continue;
        v->first[b] = v->got[b];
        v->got[b] = xcalloc(v->lay.bytes[b] + 8, 1);
    }
}

void vfy_launch(struct vfy_case *v, const struct msg *m)
{
    struct cmp_result *cmp = &v->r.cmp;
    /* The fastest launch: the first carries lazy module loading and library set-up. */
    if (!v->launches || m->kernel_ms < v->r.kernel_ms)
        v->r.kernel_ms = m->kernel_ms;
    /* The first apart: on the emulator it is the checked launch, most of its time. */
    if (!v->launches)
        v->r.first_launch_ms = m->kernel_ms;
    vfy_observed(v, m);
    const void *got[HB_MAX_BUF_ARGS];
    vfy_view(v, got);
    if (!v->launches) {
        vfy_first(v, got);
        v->launches++;
        return;
    }
    vfy_never_written(v, m);
    int differs = 0;
    for (int b = 0; b < v->lay.n_bufs; b++)
        differs |= v->lay.role[b] == OP_ROLE_OUT && memcmp(v->first[b], got[b], v->lay.bytes[b]);
    if (differs) {
        int first_difference = !(cmp->classes & CLS_NONDET);
        cmp->classes |= CLS_NONDET;
        if (v->k && v->k->nondeterministic)
            vfy_repeat_within(v, got, cmp);
        else
            vfy_repeat_bound(v, got, first_difference, cmp);
    }
    v->launches++;
}

/* The worker's words: a failed call's replace the op's note, an empty grid's give way to it, and
 * the backend's faults follow it. */
void vfy_end(struct vfy_case *v, const struct msg *m)
{
    v->r.cmp.classes |= m->seen;
    v->r.child_ms = m->child_ms;
    int empty_grid = v->k && !v->r.threads;
    if ((m->seen & CLS_API) || !v->r.why[0])
        txt_copy(v->r.why, sizeof v->r.why, m->why);
    else if (m->why[0] && !empty_grid) {
        size_t used = strlen(v->r.why);
        snprintf(v->r.why + used, sizeof v->r.why - used, "; %s", m->why);
    }
    txt_copy(v->r.binary, sizeof v->r.binary, m->binary);
}

void vfy_free(struct vfy_case *v)
{
    for (int b = 0; b < HB_MAX_BUF_ARGS; b++) {
        free(v->got[b]), free(v->first[b]);
        v->got[b] = v->first[b] = NULL;
    }
}
