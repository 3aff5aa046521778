/* SPDX-License-Identifier: MIT */
/* bench_custom.c: the point `harness bench` times a custom kernel at (the scan and softmax
 * families, any op = custom kernel of one or two sizes): n = --reduce-n floats in, as the
 * reductions and the copy they are measured against. One size is n itself; two are rows x
 * cols with rows of BENCH_ROW_LEN (a softmax over 1024 columns, as language models have them).
 * The buffers are the manifest's, filled as a conformance case fills them (uniform data), so
 * the kernel sees its own layout; the rate counts every buffer's bytes once, read or written,
 * as the copy counts its bytes read plus written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "bench.h"
#include "custom.h"
#include "manifest.h"

#define BENCH_ROW_LEN 1024L

int bench_custom_case(const struct kern_desc *k, long n, struct hb_case *c, char *why, size_t len)
{
    const struct cus_desc *d = k->custom;
    memset(c, 0, sizeof *c);
    c->op = OP_CUSTOM;
    c->dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
    c->seed = (uint64_t)n;
    if (d->n_sizes < 1 || d->n_sizes > 2) {
        snprintf(why, len, "not timed: bench sizes custom kernels of one size (n) or two (rows cols), not %d",
                 d->n_sizes);
        return -1;
    }
    long cols = n < BENCH_ROW_LEN ? n : BENCH_ROW_LEN;
    long value[2] = {d->n_sizes == 1 ? n : (cols > 0 ? n / cols : 0), cols};
    c->n_sizes = d->n_sizes;
    for (int i = 0; i < d->n_sizes; i++) {
        snprintf(c->sizes[i].name, sizeof c->sizes[i].name, "%s", d->sizes[i]);
        c->sizes[i].value = value[i];
    }
    case_sizes_text(c, c->name, sizeof c->name);
    return 0;
}

double bench_custom_bytes(const struct kern_desc *k, long n)
{
    struct hb_case c;
    char why[160];
    if (bench_custom_case(k, n, &c, why, sizeof why))
        return 0;
    long sizes[CUS_MAX_SIZES], len;
    struct hb_err err;
    double bytes = 0;
    cus_case_sizes(k->custom, &c, sizes);
    for (int b = 0; b < k->custom->n_bufs; b++) {
        const struct cus_buffer *buf = &k->custom->bufs[b];
        if (buf->role != CUS_SCRATCH && !cus_expr_eval(&buf->len, sizes, &len, &err) && len > 0)
            bytes += (double)len * ty_get(buf->type)->size * (buf->role == CUS_INOUT ? 2 : 1);
    }
    return bytes;
}

/* Allocates and fills every buffer of the layout; 0, or -1 (the buffers made so far are in
 * args, for the caller to release). */
static int bench_custom_buffers(struct bcall *bk, const struct op_layout *lay, struct hb_args *args)
{
    for (int b = 0; b < args->n_bufs; b++) {
        if (bcall_alloc(bk, lay->bytes[b], &args->bufs[b]) != HB_OK)
            return -1;
        if (lay->bytes[b] && bcall_upload(bk, args->bufs[b], 0, lay->data[b], lay->bytes[b]) != HB_OK)
            return -1;
    }
    return 0;
}

double bench_custom_point(struct bcall *bk, hb_kern *kern, const struct kern_desc *k, long n, int runs, char *why,
                          size_t len)
{
    struct hb_case c;
    if (bench_custom_case(k, n, &c, why, len))
        return -1;
    struct cus_data *kd = xcalloc(1, sizeof *kd);
    cus_data_make(k, &c, kd);
    double ms = -1;
    struct op_layout lay;
    struct hb_args args;
    memset(&args, 0, sizeof args);
    unsigned grid[3] = {1, 1, 1};
    struct hb_err err = {{0}};
    if (kd->error[0]) {
        snprintf(why, len, "%.250s", kd->error);
    } else {
        cus_layout_of(k, kd, &lay);
        kern_bind(k, OP_CUSTOM, &lay, &args);
        if (kern_grid(k, &c, grid, &err))
            snprintf(why, len, "%.250s", err.msg);
        else if (bench_custom_buffers(bk, &lay, &args) == 0)
            ms = bench_time_launches(bk, kern, BENCH_KERNEL, grid, &args, 0, runs);
        if (ms < 0 && !why[0])
            snprintf(why, len, "%s: %.230s", c.name, bcall_error(bk));
    }
    for (int b = 0; b < args.n_bufs; b++)
        if (args.bufs[b])
            bcall_release(bk, args.bufs[b]);
    for (int b = 0; b < HB_MAX_BUF_ARGS; b++)
        arena_free(kd->init[b]);
    free(kd);
    return ms;
}
