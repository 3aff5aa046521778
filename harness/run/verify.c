/* verify.c: see verify.h. What testbed.c did with an output before issue 27, moved to the one
 * process that holds the references: a kernel runs in its worker and can change anything there,
 * figures and records included, but not what the parent computes from the bytes it reads. */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "guard.h"
#include "text.h"

void vfy_begin(struct vfy_case *v, const struct kern_desc *k, const struct case_data *d, const struct rep_result *row)
{
    memset(v, 0, sizeof *v);
    v->k = k, v->d = d, v->op = op_get(d->c->op);
    v->r = *row;
    v->op->layout(d, k, &v->lay);
    v->out_bytes = v->lay.bytes[v->lay.out];
    v->got = xcalloc(v->out_bytes / sizeof(float) + 1, sizeof(float));
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

/* A repeat of a kernel that declared deterministic = no differs from the first launch: it is
 * judged against the reference on its own (its classes join the row's, its ratio if worse),
 * and the ULP spread between the two is kept. verdict.c then decides what the difference means. */
static void vfy_repeat_within(struct vfy_case *v, struct cmp_result *cmp)
{
    size_t n = v->out_bytes / sizeof(float);
    for (size_t i = 0; i < n; i++) {
        uint64_t ulp = cmp_ulp(v->got[i], v->first[i]);
        if (ulp > cmp->repeat_ulp)
            cmp->repeat_ulp = ulp;
    }
    struct cmp_result *again = xcalloc(1, sizeof *again);
    cmp_init(again);
    v->op->compare(v->d, v->k, v->got, again);
    cmp->classes |= again->classes;
    cmp->suspect |= again->suspect;
    if (again->max_ratio * cmp->threshold > cmp->max_ratio * again->threshold)
        cmp->max_ratio = again->max_ratio, cmp->threshold = again->threshold;
    free(again);
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
    if (v->op->check_padding)
        v->op->check_padding(v->d, v->k, v->got, v->lay.out, cmp);
}

void vfy_launch(struct vfy_case *v, const struct msg *m)
{
    struct cmp_result *cmp = &v->r.cmp;
    /* The fastest launch: the first carries lazy module loading and library set-up. */
    if (!v->launches || m->kernel_ms < v->r.kernel_ms)
        v->r.kernel_ms = m->kernel_ms;
    vfy_observed(v, m);
    if (!v->launches) {
        v->r.output_hash = hb_fnv1a(v->got, v->out_bytes);
        v->op->compare(v->d, v->k, v->got, cmp);
        v->first = v->got;
        v->got = xcalloc(v->out_bytes / sizeof(float) + 1, sizeof(float));
    } else if (memcmp(v->first, v->got, v->out_bytes)) {
        cmp->classes |= CLS_NONDET;
        if (v->k && v->k->nondeterministic)
            vfy_repeat_within(v, cmp);
    }
    v->launches++;
}

void vfy_end(struct vfy_case *v, const struct msg *m)
{
    v->r.cmp.classes |= m->seen;
    v->r.child_ms = m->child_ms;
    txt_copy(v->r.why, sizeof v->r.why, m->why);
    txt_copy(v->r.binary, sizeof v->r.binary, m->binary);
}

void vfy_free(struct vfy_case *v)
{
    free(v->got), free(v->first);
    v->got = v->first = NULL;
}
