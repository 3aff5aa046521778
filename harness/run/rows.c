/* SPDX-License-Identifier: MIT */
/* rows.c: see rows.h. Every field here comes from the plan (the probe, the manifest, the case
 * catalogue), never from a worker. */
#include "rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* Whether a kernel came from a --manifest file rather than the shipped kernels/ folder: its
 * reproducer then names the manifests. */
static int rows_user_kernel(const struct kern_desc *k)
{
    char *dir = path_join(path_root_dir(), "kernels/");
    int user = !k->file || strncmp(k->file, dir, strlen(dir)) != 0;
    free(dir);
    return user;
}

void rows_identity(struct rep_result *r, const struct group *g)
{
    memset(r, 0, sizeof *r);
    cmp_init(&r->cmp);
    snprintf(r->backend, sizeof r->backend, "%s", g->p->name);
    snprintf(r->device, sizeof r->device, "%s", g->p->dev[g->device].name);
    snprintf(r->driver, sizeof r->driver, "%s", g->p->dev[g->device].driver);
    snprintf(r->lang, sizeof r->lang, "%s", g->k ? g->k->lang : "vendor");
    snprintf(r->kernel, sizeof r->kernel, "%s", g->k ? g->k->name : g->p->vendor);
    snprintf(r->note, sizeof r->note, "%s", g->k && g->k->note ? g->k->note : "");
    r->device_index = g->device;
    r->user_manifest = g->k && rows_user_kernel(g->k);
    r->width = g->width.width;
    r->op = g->k ? g->k->op : op_vendor();
}

void rows_group(struct rep_result *r, const struct group *g, enum hb_verdict verdict, unsigned classes, const char *why)
{
    rows_identity(r, g);
    r->group_row = 1;
    snprintf(r->case_name, sizeof r->case_name, "*");
    r->verdict = verdict;
    r->cmp.classes = classes;
    txt_copy(r->why, sizeof r->why, why ? why : "");
}

void rows_case(struct rep_result *r, const struct hb_case *c)
{
    snprintf(r->case_name, sizeof r->case_name, "%s", c->name);
    r->n_sizes = c->n_sizes;
    memcpy(r->sizes, c->sizes, sizeof r->sizes);
    snprintf(r->dist, sizeof r->dist, "%s", case_dist_name(c->dist));
    r->seed = c->seed;
    if (c->note[0] && !r->note[0])
        snprintf(r->note, sizeof r->note, "%s", c->note);
}
