/* SPDX-License-Identifier: MIT */
/* op_gemm.c: the sgemm and sgemm_strided ops (op.h). C = A * B, or C = alpha A B + beta C for a
 * kernel that declares alpha and beta, on matrices stored by rows (the default) or by columns
 * (layout = col), rows or columns ld elements apart with sblat3's rogue values in the padding.
 * Inputs come from gen.c, references from reference/; this file lays them out per kernel
 * (op_gemm_data.c makes them) and checks what comes back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "compare.h"
#include "manifest.h"
#include "op.h"
#include "op_gemm.h"
#include "result.h"

/* The kernel ABI passes sizes as 32-bit ints and indexes with them. */
#define GEMM_MAX_ELEMS 2147483647L

/* Leading dimensions default to one element of padding per row, as sblat3 uses; given, they
 * must hold a row. alpha and beta take the op's defaults (op_gemm.h) when not given. No matrix
 * may outgrow a 32-bit index, stored by rows or by columns. */
static int gemm_complete_case(struct hb_case *c, const char *where, struct hb_err *err)
{
    const char *names[3] = {"lda", "ldb", "ldc"};
    long rows[3] = {c->K, c->N, c->N};
    long *ld[3] = {&c->lda, &c->ldb, &c->ldc};
    for (int i = 0; gemm_strided(c) && i < 3; i++) {
        if (*ld[i] < 0)
            *ld[i] = rows[i] + 1;
        if (*ld[i] < rows[i] || *ld[i] < 1) {
            err_set(err, "%s: %s=%ld is shorter than a row (%ld)", where, names[i], *ld[i], rows[i]);
            return -1;
        }
    }
    if (!(c->scalars & CASE_ALPHA))
        c->alpha = GEMM_ALPHA;
    if (!(c->scalars & CASE_BETA))
        c->beta = GEMM_BETA;
    for (int col = 0; col < 2; col++) {
        long l[3], outer[3] = {col ? c->K : c->M, col ? c->N : c->K, col ? c->N : c->M};
        gemm_ld(c, col, l);
        for (int i = 0; i < 3; i++)
            if (outer[i] > 0 && l[i] > GEMM_MAX_ELEMS / outer[i]) {
                err_set(err, "%s: %ldx%ldx%ld has a matrix of more than %ld elements", where, c->M, c->N, c->K,
                        GEMM_MAX_ELEMS);
                return -1;
            }
    }
    return 0;
}

static void gemm_layout(const struct case_data *d, const struct kern_desc *k, struct op_layout *l)
{
    const struct hb_case *c = d->c;
    const struct gemm_data *g = d->ref;
    int col = k ? k->col_major : 0;
    long ld[3];
    gemm_ld(c, col, ld);
    memset(l, 0, sizeof *l);
    l->n_bufs = 3, l->role[2] = OP_ROLE_OUT;
    for (int i = 0; i < 2; i++)
        l->data[i] = g->img[col][i], l->bytes[i] = g->img_n[col][i] * sizeof(float);
    l->bytes[2] = (size_t)(col ? c->N : c->M) * (size_t)ld[2] * sizeof(float);
    if (kern_takes(k, "beta"))
        l->data[2] = g->img[col][2]; /* C holds values for a kernel that takes beta, else poison */
    /* Slots as in gemm_params: M N K lda ldb ldc, alpha beta. BLAS wants ld >= 1 even for an
     * empty matrix; nothing is stored there then. */
    long ints[6] = {c->M, c->N, c->K, ld[0] > 1 ? ld[0] : 1, ld[1] > 1 ? ld[1] : 1, ld[2] > 1 ? ld[2] : 1};
    l->n_ints = 6;
    for (int i = 0; i < 6; i++)
        l->ints[i] = (int32_t)ints[i];
    l->n_floats = 2;
    gemm_scalars(c, k, &l->floats[0], &l->floats[1]);
}

/* Visits C's padding in kernel k's layout: `outer` rows (or columns) of ldc elements, the first
 * `inner` of which are data. Returns the first padding element fn rejects, or -1. */
static long gemm_padding(const struct case_data *d, const struct kern_desc *k, float *out, int (*fn)(float *))
{
    const struct hb_case *c = d->c;
    int col = k ? k->col_major : 0;
    long ld[3], outer = col ? c->N : c->M, inner = col ? c->M : c->N;
    gemm_ld(c, col, ld);
    for (long o = 0; o < outer; o++)
        for (long i = inner; i < ld[2]; i++)
            if (fn(&out[o * ld[2] + i]))
                return o * ld[2] + i;
    return -1;
}

static int set_rogue(float *v) { return *v = GEMM_ROGUE_VALUE, 0; }

static int not_rogue(float *v)
{
    float rogue = GEMM_ROGUE_VALUE;
    return memcmp(v, &rogue, sizeof rogue) != 0;
}

/* The padding of C starts as the rogue value and must stay so. */
static void gemm_init_output(const struct case_data *d, const struct kern_desc *k, void *out)
{
    gemm_padding(d, k, out, set_rogue);
}

static void gemm_check_padding(const struct case_data *d, const struct kern_desc *k, const void *out, int out_arg,
                               struct cmp_result *cmp)
{
    if (cmp->oob_buffer >= 0)
        return;
    long at = gemm_padding(d, k, (float *)out, not_rogue); /* reads only: not_rogue writes nothing */
    if (at >= 0) {
        cmp->classes |= CLS_OOB;
        cmp->oob_buffer = out_arg;
        cmp->oob_offset = at * (long)sizeof(float);
    }
}

/* Kernel k's C (buffer 2) back as the row-major M x N matrix the references hold. */
static void gemm_compare(const struct case_data *d, const struct kern_desc *k, const void *const bufs[],
                         struct cmp_result *cmp)
{
    const struct hb_case *c = d->c;
    const float *out = bufs[2];
    const struct gemm_data *g = d->ref;
    int col = k ? k->col_major : 0;
    long ld[3];
    gemm_ld(c, col, ld);
    float alpha, beta;
    gemm_scalars(c, k, &alpha, &beta);
    const float *got = out;
    float *compact = NULL;
    if (col || ld[2] != c->N) {
        got = compact = xcalloc((size_t)c->M * c->N + 1, sizeof(float));
        for (long i = 0; i < c->M; i++)
            for (long j = 0; j < c->N; j++)
                compact[i * c->N + j] = col ? out[i + j * ld[2]] : out[i * ld[2] + j];
    }
    /* An exact case promises every element exact for the plain product; with scalars the
     * reference decides per element (ref.h: powers of two keep them exact). */
    int exact = c->dist == DIST_EXACT && alpha == 1 && beta == 0;
    cmp_sgemm_given(gemm_ref(g, alpha, beta), kern_takes(k, "beta") ? g->c : NULL, got, exact, cmp);
    free(compact);
}

static void gemm_note(const struct case_data *d, const struct kern_desc *k, struct rep_result *r)
{
    r->scalars = (kern_takes(k, "alpha") ? CASE_ALPHA : 0) | (kern_takes(k, "beta") ? CASE_BETA : 0);
    gemm_scalars(d->c, k, &r->alpha, &r->beta);
    snprintf(r->layout, sizeof r->layout, "%s", k && k->col_major ? "col" : "row");
}

static void gemm_describe(const struct rep_result *r, char *buf, size_t len)
{
    if (r->op == OP_SGEMM_STRIDED)
        snprintf(buf, len, "%ldx%ldx%ld lda %ld ldb %ld ldc %ld", r->M, r->N, r->K, r->lda, r->ldb, r->ldc);
    else
        snprintf(buf, len, "%ldx%ldx%ld", r->M, r->N, r->K);
    /* A row read back from JSON has the values but not which the kernel took. One the op never
     * noted (no layout: the case crashed or timed out first) has neither: none is shown. */
    size_t n = strlen(buf);
    int noted = r->layout[0] != 0;
    if (!strcmp(r->layout, "col"))
        n += (size_t)snprintf(buf + n, len - n, " col-major");
    if (n < len && noted && (r->scalars & CASE_ALPHA || r->alpha != 1))
        n += (size_t)snprintf(buf + n, len - n, " alpha %g", r->alpha);
    if (n < len && noted && (r->scalars & CASE_BETA || r->beta != 0))
        snprintf(buf + n, len - n, " beta %g", r->beta);
}

static void gemm_name_element(long i, long j, char *buf, size_t len) { snprintf(buf, len, "C[%ld][%ld]", i, j); }

/* The signature vocabulary (kernels/README.md): slots index gemm_layout's buffers, ints, floats. */
static const struct op_param gemm_params[] = {
    {"A", HB_PARAM_BUF, 0},   {"B", HB_PARAM_BUF, 1},     {"C", HB_PARAM_BUF, 2},    {"M", HB_PARAM_I32, 0},
    {"N", HB_PARAM_I32, 1},   {"K", HB_PARAM_I32, 2},     {"lda", HB_PARAM_I32, 3},  {"ldb", HB_PARAM_I32, 4},
    {"ldc", HB_PARAM_I32, 5}, {"alpha", HB_PARAM_F32, 0}, {"beta", HB_PARAM_F32, 1}, {NULL, 0, 0},
};

/* What sgemm and sgemm_strided share: everything but their case keys and default ABI. */
#define GEMM_OP_STEPS                                                                                                  \
    .required_keys = "M N K", .complete_case = gemm_complete_case, .grid_vars = "MNK", .unit = "elements", .gemm = 1,  \
    .matrix_output = 1, .params = gemm_params, .prepare = gemm_prepare, .release = gemm_release,                       \
    .reference = gemm_reference, .layout = gemm_layout, .init_output = gemm_init_output,                               \
    .check_padding = gemm_check_padding, .compare = gemm_compare, .note = gemm_note, .describe = gemm_describe,        \
    .name_element = gemm_name_element

const struct op_desc op_sgemm = {
    .name = "sgemm",
    .size_keys = "M N K",
    .default_args = "A B C M N K",
    GEMM_OP_STEPS,
};

const struct op_desc op_sgemm_strided = {
    .name = "sgemm_strided",
    .size_keys = "M N K lda ldb ldc",
    .default_args = "A B C M N K lda ldb ldc",
    GEMM_OP_STEPS,
};
