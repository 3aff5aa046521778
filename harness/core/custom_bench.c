/* SPDX-License-Identifier: MIT */
/* custom_bench.c: how `harness bench` times a custom kernel (op.h's op_bench; the scan and
 * softmax families, any op = custom kernel of one or two sizes): n = --reduce-n floats in, as
 * the reductions and the copy they are measured against. One size is n itself; two are rows x
 * cols with rows of CUS_BENCH_ROW_LEN (a softmax over 1024 columns, as language models have
 * them). The rate counts every buffer's bytes once, read or written, as the copy counts its
 * bytes read plus written. Times nothing itself: bench.c does, on the op's data and layout. */
#include <stdio.h>
#include <string.h>

#include "custom.h"
#include "manifest.h"

#define CUS_BENCH_ROW_LEN 1024L

static void cus_bench_heading(char *buf, size_t len, int runs, long n)
{
    (void)runs;
    snprintf(buf, len,
             "Custom ops: scan, softmax (n = %ld floats in: sizes n, or rows x %ld columns; GB/s of bytes read plus "
             "written, as the copy)",
             n, CUS_BENCH_ROW_LEN);
}

static int cus_bench_point(const struct kern_desc *k, long n, struct hb_case *c, char *why, size_t len)
{
    const struct cus_desc *d = k->custom;
    memset(c, 0, sizeof *c);
    c->op = k->op;
    c->dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
    c->seed = (uint64_t)n;
    if (d->n_sizes < 1 || d->n_sizes > 2) {
        snprintf(why, len, "not timed: bench sizes custom kernels of one size (n) or two (rows cols), not %d",
                 d->n_sizes);
        return -1;
    }
    long cols = n < CUS_BENCH_ROW_LEN ? n : CUS_BENCH_ROW_LEN;
    long value[2] = {d->n_sizes == 1 ? n : (cols > 0 ? n / cols : 0), cols};
    for (int i = 0; i < d->n_sizes; i++)
        case_size_set(c->sizes, &c->n_sizes, d->sizes[i], value[i]);
    case_sizes_text(c->sizes, c->n_sizes, c->name, sizeof c->name);
    return 0;
}

/* Every buffer but scratch once, an inout twice (read and written). */
static double cus_bench_bytes(const struct kern_desc *k, const struct hb_case *c)
{
    long sizes[CUS_MAX_SIZES], len;
    struct hb_err err;
    double bytes = 0;
    cus_case_sizes(k->custom, c, sizes);
    for (int b = 0; b < k->custom->n_bufs; b++) {
        const struct cus_buffer *buf = &k->custom->bufs[b];
        if (buf->role != CUS_SCRATCH && !cus_expr_eval(&buf->len, sizes, &len, &err) && len > 0)
            bytes += (double)len * ty_get(buf->type)->size * (buf->role == CUS_INOUT ? 2 : 1);
    }
    return bytes;
}

const struct op_bench cus_bench = {OP_BENCH_BYTES, cus_bench_heading, cus_bench_point, cus_bench_bytes};
