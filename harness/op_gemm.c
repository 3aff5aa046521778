/* op_gemm.c: the sgemm and sgemm_strided ops (op.h). C = A * B, row-major; the strided form
 * keeps rows lda, ldb, ldc elements apart with sblat3's rogue values in the padding. Inputs
 * come from gen.c, references from reference/; this file only lays them out and checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "compare.h"
#include "gen.h"
#include "manifest.h"
#include "op.h"
#include "ref.h"
#include "report.h"

/* sblat3's "rogue" value: what the padding between strided rows holds. Finite and huge, so
 * a kernel that reads it as data is far off, and exact bits to check that it survives. */
#define GEMM_ROGUE_VALUE (-1.0e10f)

/* Lays a rows x cols matrix out with row stride ld, the rogue value in the padding. */
static float *with_stride(const float *compact, long rows, long cols, long ld)
{
    float *out = xcalloc((size_t)rows * ld, sizeof(float));
    for (long r = 0; r < rows; r++)
        for (long j = 0; j < ld; j++)
            out[r * ld + j] = j < cols ? compact[r * cols + j] : GEMM_ROGUE_VALUE;
    return out;
}

static int strided(const struct hb_case *c) { return c->op == OP_SGEMM_STRIDED; }

/* The kernel ABI passes sizes as 32-bit ints and indexes with them. */
#define GEMM_MAX_ELEMS 2147483647L

/* Leading dimensions default to one element of padding per row, as sblat3 uses; given, they
 * must hold a row. No matrix may outgrow a 32-bit index. */
static int gemm_complete_case(struct hb_case *c, const char *where, struct hb_err *err)
{
    const char *names[3] = {"lda", "ldb", "ldc"};
    long rows[3] = {c->K, c->N, c->N};
    long *ld[3] = {&c->lda, &c->ldb, &c->ldc};
    for (int i = 0; strided(c) && i < 3; i++) {
        if (*ld[i] < 0)
            *ld[i] = rows[i] + 1;
        if (*ld[i] < rows[i] || *ld[i] < 1) {
            err_set(err, "%s: %s=%ld is shorter than a row (%ld)", where, names[i], *ld[i], rows[i]);
            return -1;
        }
    }
    if (c->M * (strided(c) ? c->lda : c->K) > GEMM_MAX_ELEMS || c->K * (strided(c) ? c->ldb : c->N) > GEMM_MAX_ELEMS ||
        c->M * (strided(c) ? c->ldc : c->N) > GEMM_MAX_ELEMS) {
        err_set(err, "%s: %ldx%ldx%ld has a matrix of more than %ld elements", where, c->M, c->N, c->K, GEMM_MAX_ELEMS);
        return -1;
    }
    return 0;
}
static long ldc_of(const struct hb_case *c) { return strided(c) ? c->ldc : c->N; }

static void gemm_prepare(struct case_data *d, const struct kern_set *ks)
{
    (void)ks;
    const struct hb_case *c = d->c;
    /* The same values whatever the strides: references come from the compact matrices. */
    size_t n[2] = {(size_t)c->M * c->K, (size_t)c->K * c->N};
    for (int i = 0; i < 2; i++) {
        d->in[i] = xcalloc(n[i], sizeof(float));
        gen_fill(d->in[i], n[i], c, c->K, i);
        d->in_n[i] = n[i];
    }
    d->n_in = 2;
    struct ref_sgemm *ref = xcalloc(1, sizeof *ref);
    ref_sgemm_compute(ref, d->in[0], d->in[1], c->M, c->N, c->K);
    d->ref = ref;
    if (strided(c)) {
        float *a = with_stride(d->in[0], c->M, c->K, c->lda), *b = with_stride(d->in[1], c->K, c->N, c->ldb);
        free(d->in[0]), free(d->in[1]);
        d->in[0] = a, d->in[1] = b;
        d->in_n[0] = (size_t)c->M * c->lda, d->in_n[1] = (size_t)c->K * c->ldb;
    }
}

static void gemm_release(struct case_data *d)
{
    if (d->ref)
        ref_sgemm_free(d->ref);
    free(d->ref);
    d->ref = NULL;
}

static void gemm_layout(const struct case_data *d, const struct kern_desc *k, struct op_layout *l)
{
    (void)k;
    const struct hb_case *c = d->c;
    memset(l, 0, sizeof *l);
    l->n_bufs = 3, l->out = 2;
    l->data[0] = d->in[0], l->bytes[0] = d->in_n[0] * sizeof(float);
    l->data[1] = d->in[1], l->bytes[1] = d->in_n[1] * sizeof(float);
    l->bytes[2] = (size_t)c->M * ldc_of(c) * sizeof(float);
    l->n_ints = strided(c) ? 6 : 3;
    l->ints[0] = (int32_t)c->M, l->ints[1] = (int32_t)c->N, l->ints[2] = (int32_t)c->K;
    l->ints[3] = (int32_t)c->lda, l->ints[4] = (int32_t)c->ldb, l->ints[5] = (int32_t)c->ldc;
}

/* Output rows of a strided case: the padding starts as the rogue value and must stay so. */
static void gemm_init_output(const struct case_data *d, float *out)
{
    const struct hb_case *c = d->c;
    if (!strided(c))
        return;
    for (long r = 0; r < c->M; r++)
        for (long j = c->N; j < c->ldc; j++)
            out[r * c->ldc + j] = GEMM_ROGUE_VALUE;
}

static void gemm_check_padding(const struct case_data *d, const float *out, int out_arg, struct cmp_result *cmp)
{
    const struct hb_case *c = d->c;
    if (!strided(c) || cmp->oob_buffer >= 0)
        return;
    float rogue = GEMM_ROGUE_VALUE;
    for (long r = 0; r < c->M; r++)
        for (long j = c->N; j < c->ldc; j++)
            if (memcmp(&out[r * c->ldc + j], &rogue, sizeof rogue)) {
                cmp->classes |= CLS_OOB;
                cmp->oob_buffer = out_arg;
                cmp->oob_offset = (r * c->ldc + j) * (long)sizeof(float);
                return;
            }
}

static void gemm_compare(const struct case_data *d, const struct kern_desc *k, const float *out,
                         struct cmp_result *cmp)
{
    (void)k;
    const struct hb_case *c = d->c;
    int exact = c->dist == DIST_EXACT;
    if (!strided(c)) {
        cmp_sgemm(d->ref, out, exact, cmp);
        return;
    }
    float *compact = xcalloc((size_t)c->M * c->N + 1, sizeof(float));
    for (long r = 0; r < c->M; r++)
        memcpy(compact + r * c->N, out + r * c->ldc, (size_t)c->N * sizeof(float));
    cmp_sgemm(d->ref, compact, exact, cmp);
    free(compact);
}

static void gemm_describe(const struct rep_result *r, char *buf, size_t len)
{
    if (r->op == OP_SGEMM_STRIDED)
        snprintf(buf, len, "%ldx%ldx%ld lda %ld ldb %ld ldc %ld", r->M, r->N, r->K, r->lda, r->ldb, r->ldc);
    else
        snprintf(buf, len, "%ldx%ldx%ld", r->M, r->N, r->K);
}

static void gemm_name_element(long i, long j, char *buf, size_t len) { snprintf(buf, len, "C[%ld][%ld]", i, j); }

const struct op_desc op_sgemm = {
    .name = "sgemm",
    .size_keys = "M N K",
    .required_keys = "M N K",
    .complete_case = gemm_complete_case,
    .grid_vars = "MNK",
    .unit = "elements",
    .gemm = 1,
    .matrix_output = 1,
    .prepare = gemm_prepare,
    .release = gemm_release,
    .layout = gemm_layout,
    .init_output = gemm_init_output,
    .check_padding = gemm_check_padding,
    .compare = gemm_compare,
    .describe = gemm_describe,
    .name_element = gemm_name_element,
};

const struct op_desc op_sgemm_strided = {
    .name = "sgemm_strided",
    .size_keys = "M N K lda ldb ldc",
    .required_keys = "M N K",
    .complete_case = gemm_complete_case,
    .grid_vars = "MNK",
    .unit = "elements",
    .gemm = 1,
    .matrix_output = 1,
    .prepare = gemm_prepare,
    .release = gemm_release,
    .layout = gemm_layout,
    .init_output = gemm_init_output,
    .check_padding = gemm_check_padding,
    .compare = gemm_compare,
    .describe = gemm_describe,
    .name_element = gemm_name_element,
};
