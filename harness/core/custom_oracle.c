/* SPDX-License-Identifier: MIT */
/* custom_oracle.c: a custom kernel judged by another kernel (oracle = [LANG/]KERNEL, custom.h):
 * finding it once every manifest is read, checking that it can stand in (a CUDA or HIP custom
 * kernel of the same sizes and buffers), and running it on a case's data through the runner the
 * run layer lends (the emulator in lockstep, in a child, at a width the oracle is written for),
 * again from the other poison when an output element came back as the poison. It compares
 * nothing with the kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "custom.h"
#include "manifest.h"
#include "text.h"

static cus_oracle_fn cus_runner;

void cus_set_oracle_runner(cus_oracle_fn run) { cus_runner = run; }

/* A buffer's declaration but its name: type, role, length, init. */
static const char *cus_decl(const struct cus_buffer *b)
{
    const char *sp = strchr(b->text, ' ');
    return sp ? sp : "";
}

/* Why o cannot stand in for k, or NULL when it can. */
static const char *cus_unfit(const struct kern_desc *k, const struct kern_desc *o)
{
    const struct cus_desc *x = k->custom, *y = o->custom;
    if (o == k)
        return "is the kernel itself";
    if (!y)
        return "is not op = custom";
    if (strcmp(o->lang, "cuda") && strcmp(o->lang, "hip"))
        return "is not CUDA or HIP: an oracle runs on the emulator";
    int same = x->n_sizes == y->n_sizes && x->n_bufs == y->n_bufs;
    for (int i = 0; same && i < x->n_sizes; i++)
        same = !strcmp(x->sizes[i], y->sizes[i]);
    for (int i = 0; same && i < x->n_bufs; i++)
        same = !strcmp(cus_decl(&x->bufs[i]), cus_decl(&y->bufs[i]));
    return same ? NULL : "has other sizes or buffers (the same types, roles, lengths and inits, in order)";
}

/* The kernel named LANG/NAME, or the only one named NAME; *found counts the candidates. */
static const struct kern_desc *cus_named(const struct kern_set *ks, const char *name, int *found)
{
    const struct kern_desc *hit = NULL;
    *found = 0;
    for (int i = 0; i < ks->n; i++) {
        char full[160];
        snprintf(full, sizeof full, "%s/%s", ks->k[i].lang, ks->k[i].name);
        if (!strcmp(full, name) || !strcmp(ks->k[i].name, name))
            hit = &ks->k[i], ++*found;
    }
    return hit;
}

int cus_resolve(struct kern_set *ks, struct hb_err *err)
{
    for (int i = 0; i < ks->n; i++) {
        struct kern_desc *k = &ks->k[i];
        if (!k->custom || !k->custom->oracle)
            continue;
        int found;
        const struct kern_desc *o = cus_named(ks, k->custom->oracle, &found);
        const char *why = found > 1 ? "names more than one kernel (write LANG/NAME)" : o ? cus_unfit(k, o) : NULL;
        if (!found)
            why = "is no kernel of this run's manifests";
        if (why)
            return err_set(err, "%s:%d: kernel [%s]: oracle %s %s", k->file, k->custom->oracle_line, k->name,
                           k->custom->oracle, why),
                   -1;
        k->custom->oracle_k = o;
    }
    return 0;
}

int cus_oracle_width(const struct kern_desc *o) { return kern_written_for(o, 32) || !o->n_widths ? 32 : o->widths[0]; }

/* The first pure output element that held the first poison after run `one` and not after run
 * `two` (from the other poison): never written, or made from what it held. 1 with what, else 0. */
static int cus_oracle_moved(const struct cus_desc *d, const struct cus_data *cd, void *const one[], void *const two[],
                            char *what, size_t len)
{
    for (int b = 0; b < d->n_bufs; b++) {
        const struct ty_info *t = ty_get(d->bufs[b].type);
        size_t n = d->bufs[b].role == CUS_OUT ? cd->count[b] : 0;
        const char *first = one[b], *again = two[b];
        for (size_t e = n ? ty_find_bits(d->bufs[b].type, first, t->poison, n) : 0; e < n;
             e += 1 + ty_find_bits(d->bufs[b].type, first + (e + 1) * t->size, t->poison, n - e - 1)) {
            uint64_t bits = ty_bits(d->bufs[b].type, again + e * t->size);
            if (bits == t->poison)
                continue; /* the poison's value, rightly: both runs gave it */
            if (bits == t->poison2)
                return snprintf(what, len, "left %s[%zu] unwritten", d->bufs[b].name, e), 1;
            return snprintf(what, len, "left %s[%zu] depending on what it held before the launch", d->bufs[b].name, e),
                   1;
        }
    }
    return 0;
}

/* Whether the oracle left a pure output element unwritten, by custom_ref.c's rule: only when its
 * run left an element as the poison, it runs again with its pure outputs starting as the other
 * poison. 1 with what (and, when that run failed, why), else 0. */
static int cus_oracle_unwritten(const struct kern_desc *k, const struct hb_case *c, const struct cus_data *cd,
                                void *const outs[], char *what, size_t len, char *why, size_t why_len)
{
    const struct cus_desc *d = k->custom;
    const struct kern_desc *o = d->oracle_k;
    int poisoned = 0;
    for (int b = 0; b < d->n_bufs && !poisoned; b++)
        poisoned = d->bufs[b].role == CUS_OUT &&
                   ty_find_bits(d->bufs[b].type, outs[b], ty_get(d->bufs[b].type)->poison, cd->count[b]) < cd->count[b];
    if (!poisoned)
        return 0;
    struct cus_data *two = xcalloc(1, sizeof *two);
    *two = *cd;
    void *again[HB_MAX_BUF_ARGS] = {NULL}, *start[HB_MAX_BUF_ARGS] = {NULL};
    for (int b = 0; b < d->n_bufs; b++) {
        const struct ty_info *t = ty_get(d->bufs[b].type);
        if (d->bufs[b].role == CUS_OUT || d->bufs[b].role == CUS_INOUT)
            again[b] = xcalloc(cd->count[b] + 1, t->size);
        if (d->bufs[b].role == CUS_OUT) /* on the heap: the runner's child inherits it */
            start[b] = two->init[b] = xcalloc(cd->count[b] + 1, t->size);
        if (start[b])
            ty_fill_bits(d->bufs[b].type, start[b], t->poison2, cd->count[b]);
    }
    int bad = 1;
    if (cus_runner(o, c, two, again, cus_oracle_width(o), cus_timeout_s(o), why, why_len))
        snprintf(what, len, "failed its second run (outputs started as the other poison)");
    else
        bad = cus_oracle_moved(d, cd, outs, again, what, len);
    for (int b = 0; b < d->n_bufs; b++)
        free(again[b]), free(start[b]);
    free(two);
    return bad;
}

void cus_oracle_run(const struct kern_desc *k, const struct hb_case *c, struct cus_data *cd)
{
    const struct cus_desc *d = k->custom;
    const struct kern_desc *o = d->oracle_k;
    void *outs[HB_MAX_BUF_ARGS] = {NULL};
    for (int b = 0; b < d->n_bufs; b++)
        if (d->bufs[b].role == CUS_OUT || d->bufs[b].role == CUS_INOUT)
            outs[b] = cd->expect[b] = arena_calloc_own(cd->count[b] + 1, ty_get(d->bufs[b].type)->size);
    char what[160] = "failed its own run", why[600] = "no oracle runner in this program";
    int width = cus_oracle_width(o);
    if (cus_runner && !cus_runner(o, c, cd, outs, width, cus_timeout_s(o), why, sizeof why)) {
        why[0] = 0;
        if (!cus_oracle_unwritten(k, c, cd, outs, what, sizeof what, why, sizeof why))
            return;
    }
    txt_printf(cd->error, sizeof cd->error,
               "oracle %s/%s (%s:%d) %s on case %s (" CUS_ORACLE_HOW "): %s%sthe harness's error, not the kernel's",
               o->lang, o->name, o->file, o->line, what, c->name, width, why, why[0] ? ": " : "");
}
