/* SPDX-License-Identifier: MIT */
/* custom_oracle.c: a custom kernel judged by another kernel (oracle = [LANG/]KERNEL, custom.h):
 * finding it once every manifest is read, checking that it can stand in (a CUDA or HIP custom
 * kernel of the same sizes and buffers), and running it on a case's data through the runner the
 * run layer lends (the emulator at width 32 in lockstep, in a child). It compares nothing. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "custom.h"
#include "manifest.h"
#include "text.h"

/* An oracle runs for as long as a C reference may: the run's default case timeout. */
#define CUS_ORACLE_TIMEOUT_S 120.0

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

void cus_oracle_run(const struct kern_desc *k, const struct hb_case *c, struct cus_data *cd)
{
    const struct cus_desc *d = k->custom;
    const struct kern_desc *o = d->oracle_k;
    void *outs[HB_MAX_BUF_ARGS] = {NULL};
    for (int b = 0; b < d->n_bufs; b++)
        if (d->bufs[b].role == CUS_OUT || d->bufs[b].role == CUS_INOUT)
            outs[b] = cd->expect[b] = arena_calloc_own(cd->count[b] + 1, ty_get(d->bufs[b].type)->size);
    char why[600] = "no oracle runner in this program";
    double timeout_s = o->timeout_s ? (double)o->timeout_s : CUS_ORACLE_TIMEOUT_S;
    if (cus_runner && !cus_runner(o, c, cd, outs, timeout_s, why, sizeof why))
        return;
    txt_printf(cd->error, sizeof cd->error,
               "oracle %s/%s (%s:%d) failed its own run on case %s (" CUS_ORACLE_HOW
               "): %s: the harness's error, not the kernel's",
               o->lang, o->name, o->file, o->line, c->name, why);
}
