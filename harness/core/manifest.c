/* SPDX-License-Identifier: MIT */
/* manifest.c: the kernel set (parsing is manifest_parse.c's) and the questions the runner
 * asks of a kernel: its grid for a case, which widths it is written for, which cases it runs,
 * and what a backend's load() needs of it. */
#include "manifest.h"

#include "custom.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kern_desc *kern_set_push(struct kern_set *set)
{
    set->k = xgrow(set->k, set->n, &set->cap, sizeof *set->k);
    struct kern_desc *k = &set->k[set->n++];
    memset(k, 0, sizeof *k);
    return k;
}

static void desc_free(struct kern_desc *k)
{
    free(k->name);
    free(k->lang);
    free(k->source);
    free(k->entry);
    free(k->note);
    free(k->cases);
    free(k->file);
    cus_free(k->custom);
    for (int i = 0; i < k->n_includes; i++)
        free(k->includes[i]);
    for (int i = 0; i < k->n_defines; i++)
        free(k->defines[i]);
    free(k->siblings);
}

void kern_set_free(struct kern_set *set)
{
    for (int i = 0; i < set->n; i++)
        desc_free(&set->k[i]);
    free(set->k);
    memset(set, 0, sizeof *set);
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int kern_discover(const char *dir, struct kern_set *set, struct hb_err *err)
{
    DIR *top = opendir(dir);
    if (!top) {
        err_set(err, "%s: cannot open kernel folder: %s", dir, strerror(errno));
        return -1;
    }
    char **paths = NULL;
    int n = 0, cap = 0;
    struct dirent *sub;
    while ((sub = readdir(top))) {
        if (sub->d_name[0] == '.')
            continue;
        char *subdir = path_join(dir, sub->d_name);
        DIR *d = opendir(subdir);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d))) {
                size_t len = strlen(e->d_name);
                if (len > 9 && !strcmp(e->d_name + len - 9, ".manifest")) {
                    paths = xgrow(paths, n, &cap, sizeof *paths);
                    paths[n++] = path_join(subdir, e->d_name);
                }
            }
            closedir(d);
        }
        free(subdir);
    }
    closedir(top);
    qsort(paths, (size_t)n, sizeof *paths, name_cmp);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!rc)
            rc = kern_parse_file(paths[i], set, err);
        free(paths[i]);
    }
    free(paths);
    return rc;
}

int kern_written_for(const struct kern_desc *k, int width)
{
    if (k->any_width)
        return 1;
    for (int i = 0; i < k->n_widths; i++)
        if (k->widths[i] == width)
            return 1;
    return 0;
}

int kern_expected_bad(const struct kern_desc *k, int width) { return k->expect || !kern_written_for(k, width); }

/* A grid variable is the one-letter size key of the case (op_desc.grid_vars). */
static long size_var(const struct hb_case *c, char var)
{
    char name[2] = {var, 0};
    return case_size(c, name);
}

int kern_grid(const struct kern_desc *k, const struct hb_case *c, unsigned grid[3], struct hb_err *err)
{
    if (k->custom)
        return cus_grid(k->custom, c, grid, err);
    for (int i = 0; i < 3; i++) {
        const struct kern_grid_term *t = &k->grid[i];
        long size = t->var ? size_var(c, t->var) : 0;
        /* Ceiling division without size + value - 1, which overflows for huge divisors. A
         * zero (M = 0, say) stays zero: the case is then not launched (testbed.c). */
        long v = t->var ? size / t->value + (size % t->value != 0) : t->value;
        if (v > 0x7fffffffL) {
            err_set(err, "grid dimension %d of %s for case %s is %ld blocks", i, k->name, c->name, v);
            return -1;
        }
        grid[i] = (unsigned)v;
    }
    return 0;
}

int kern_runs_case(const struct kern_desc *k, const struct hb_case *c)
{
    return k->op == c->op && (!k->cases || !fnmatch(k->cases, c->name, 0)) &&
           (!k->custom || cus_takes_case(k->custom, c));
}

void kern_widths_str(const struct kern_desc *k, char *buf, unsigned len)
{
    if (k->any_width) {
        snprintf(buf, len, "any");
        return;
    }
    unsigned used = 0;
    buf[0] = 0;
    for (int i = 0; i < k->n_widths && used < len; i++)
        used += (unsigned)snprintf(buf + used, len - used, "%s%d", i ? " " : "", k->widths[i]);
}

int kern_args(const struct kern_desc *k, enum hb_op op, struct kern_arg out[HB_MAX_PARAMS])
{
    if (k && k->n_args) {
        memcpy(out, k->args, (size_t)k->n_args * sizeof *out);
        return k->n_args;
    }
    const struct op_desc *d = op_get(op);
    char words[128];
    snprintf(words, sizeof words, "%s", d->default_args);
    int n = 0;
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && n < HB_MAX_PARAMS; w = strtok_r(NULL, " ", &save)) {
        int i = op_param_find(op, w);
        out[n++] = (struct kern_arg){(unsigned char)i, d->params[i].kind};
    }
    return n;
}

const struct op_param *kern_params(const struct kern_desc *k, enum hb_op op)
{
    if (k && k->custom)
        return k->custom->params;
    return k && op_get(op)->params_of ? op_get(op)->params_of(k) : op_get(op)->params;
}

int kern_param_find(const struct kern_desc *k, enum hb_op op, const char *name)
{
    const struct op_param *p = kern_params(k, op);
    for (int i = 0; p[i].name; i++)
        if (!strcmp(p[i].name, name))
            return i;
    return -1;
}

void kern_bind(const struct kern_desc *k, enum hb_op op, const struct op_layout *l, struct hb_args *a)
{
    const struct op_param *params = kern_params(k, op);
    struct kern_arg sig[HB_MAX_PARAMS];
    int n = kern_args(k, op, sig);
    memset(a, 0, sizeof *a);
    a->n_bufs = l->n_bufs;
    for (int i = 0; i < l->n_bufs; i++)
        a->bytes[i] = l->bytes[i];
    for (int i = 0; i < n; i++) {
        const struct op_param *p = &params[sig[i].param];
        int at = p->slot;
        if (p->kind == HB_PARAM_I32 || p->kind == HB_PARAM_I64) /* a custom op's i64 scalar is I64 */
            at = a->n_ints, a->ints[a->n_ints++] = l->ints[p->slot];
        else if (p->kind == HB_PARAM_F32)
            at = a->n_floats, a->floats[a->n_floats++] = l->floats[p->slot];
        a->params[a->n_params++] = (struct hb_param){sig[i].kind, (unsigned char)at};
    }
}

int kern_takes(const struct kern_desc *k, const char *name)
{
    if (!k)
        return 0; /* the vendor library takes the op's ABI, which has no scalars */
    int want = kern_param_find(k, k->op, name);
    struct kern_arg a[HB_MAX_PARAMS];
    int n = kern_args(k, k->op, a);
    for (int i = 0; want >= 0 && i < n; i++)
        if (a[i].param == want)
            return 1;
    return 0;
}

void kern_spec(const struct kern_desc *k, const char *build_dir, struct hb_kernel_spec *out)
{
    memset(out, 0, sizeof *out);
    out->name = k->name;
    out->lang = k->lang;
    out->source_path = k->source;
    out->entry = k->entry;
    out->build_dir = build_dir;
    for (int i = 0; i < 3; i++)
        out->block[i] = k->block[i];
    out->user = k->user;
    /* Only a declared list is passed on: without one, backends keep the op's ABI as before. */
    out->n_params = k->n_args;
    for (int i = 0; i < k->n_args; i++)
        out->params[i] = k->args[i].kind;
    out->shared_bytes = k->shared_bytes;
    out->n_includes = k->n_includes;
    out->includes = (const char *const *)k->includes;
    out->n_defines = k->n_defines;
    out->defines = (const char *const *)k->defines;
    out->n_siblings = k->n_siblings;
    out->siblings = (const char *const *)k->siblings;
}

static int same_words(char *const *a, int na, char *const *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    return 1;
}

/* Whether a and b are built by one compile: one file, language and set of flags. */
static int same_build(const struct kern_desc *a, const struct kern_desc *b)
{
    return strcmp(a->source, b->source) == 0 && strcmp(a->lang, b->lang) == 0 && a->user == b->user &&
           same_words(a->includes, a->n_includes, b->includes, b->n_includes) &&
           same_words(a->defines, a->n_defines, b->defines, b->n_defines);
}

void kern_link_siblings(struct kern_set *set)
{
    for (int i = 0; i < set->n; i++) {
        struct kern_desc *k = &set->k[i];
        free(k->siblings);
        k->siblings = NULL;
        k->n_siblings = 0;
        int cap = 0;
        for (int j = 0; j < set->n; j++) {
            const struct kern_desc *o = &set->k[j];
            int seen = 0;
            for (int s = 0; s < k->n_siblings && !seen; s++)
                seen = strcmp(k->siblings[s], o->entry) == 0;
            if (seen || !same_build(k, o))
                continue;
            k->siblings = xgrow(k->siblings, k->n_siblings, &cap, sizeof *k->siblings);
            k->siblings[k->n_siblings++] = o->entry;
        }
    }
}
