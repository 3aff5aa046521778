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
    struct gemm_dims m = gemm_dims(c);
    long rows[3] = {m.K, m.N, m.N};
    for (int i = 0; gemm_strided(c) && i < 3; i++) {
        long *ld = &c->sizes[case_size_find(c->sizes, c->n_sizes, names[i])].value;
        if (*ld < 0)
            *ld = rows[i] + 1;
        if (*ld < rows[i] || *ld < 1) {
            err_set(err, "%s: %s=%ld is shorter than a row (%ld)", where, names[i], *ld, rows[i]);
            return -1;
        }
    }
    static const float defaults[2] = {GEMM_ALPHA, GEMM_BETA};
    for (int i = 0; i < 2; i++)
        if (!c->scalars[i].given)
            c->scalars[i].value = defaults[i];
    for (int col = 0; col < 2; col++) {
        long l[3], outer[3] = {col ? m.K : m.M, col ? m.N : m.K, col ? m.N : m.M};
        gemm_ld(c, col, l);
        for (int i = 0; i < 3; i++)
            if (outer[i] > 0 && l[i] > GEMM_MAX_ELEMS / outer[i]) {
                err_set(err, "%s: %ldx%ldx%ld has a matrix of more than %ld elements", where, m.M, m.N, m.K,
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
    struct gemm_dims m = gemm_dims(c);
    int col = k ? k->col_major : 0;
    long ld[3];
    gemm_ld(c, col, ld);
    memset(l, 0, sizeof *l);
    l->n_bufs = 3, l->role[2] = OP_ROLE_OUT;
    for (int i = 0; i < 2; i++)
        l->data[i] = g->img[col][i], l->bytes[i] = g->img_n[col][i] * sizeof(float);
    l->bytes[2] = (size_t)(col ? m.N : m.M) * (size_t)ld[2] * sizeof(float);
    if (kern_takes(k, "beta"))
        l->data[2] = g->img[col][2]; /* C holds values for a kernel that takes beta, else poison */
    /* Slots as in gemm_params: M N K lda ldb ldc, alpha beta. BLAS wants ld >= 1 even for an
     * empty matrix; nothing is stored there then. */
    long ints[6] = {m.M, m.N, m.K, ld[0] > 1 ? ld[0] : 1, ld[1] > 1 ? ld[1] : 1, ld[2] > 1 ? ld[2] : 1};
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
    struct gemm_dims m = gemm_dims(d->c);
    int col = k ? k->col_major : 0;
    long ld[3], outer = col ? m.N : m.M, inner = col ? m.M : m.N;
    gemm_ld(d->c, col, ld);
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
    struct gemm_dims m = gemm_dims(c);
    const float *out = bufs[2];
    const struct gemm_data *g = d->ref;
    int col = k ? k->col_major : 0;
    long ld[3];
    gemm_ld(c, col, ld);
    float alpha, beta;
    gemm_scalars(c, k, &alpha, &beta);
    const float *got = out;
    float *compact = NULL;
    if (col || ld[2] != m.N) {
        got = compact = xcalloc((size_t)m.M * m.N + 1, sizeof(float));
        for (long i = 0; i < m.M; i++)
            for (long j = 0; j < m.N; j++)
                compact[i * m.N + j] = col ? out[i + j * ld[2]] : out[i * ld[2] + j];
    }
    /* An exact case promises every element exact for the plain product; with scalars the
     * reference decides per element (ref.h: powers of two keep them exact). */
    int exact = c->dist == DIST_EXACT && alpha == 1 && beta == 0;
    cmp_sgemm_given(gemm_ref(g, alpha, beta), kern_takes(k, "beta") ? g->c : NULL, got, exact, cmp);
    free(compact);
}

/* The alpha and beta kernel k computes with, each marked given where it takes it. */
static void gemm_note(const struct case_data *d, const struct kern_desc *k, struct rep_result *r)
{
    static const char *const names[2] = {"alpha", "beta"};
    float values[2];
    gemm_scalars(d->c, k, &values[0], &values[1]);
    r->n_scalars = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(r->scalars[i].name, sizeof r->scalars[i].name, "%s", names[i]);
        r->scalars[i].value = values[i];
        r->scalars[i].given = kern_takes(k, names[i]);
    }
    snprintf(r->layout, sizeof r->layout, "%s", k && k->col_major ? "col" : "row");
}

/* A scalar of the row, shown when the kernel takes it or its value is not what a kernel that
 * does not take it computes with (1 for alpha, 0 for beta). */
static size_t gemm_describe_scalar(const struct rep_result *r, const char *name, float plain, char *buf, size_t len)
{
    const struct case_scalar *s = case_scalar_find(r->scalars, r->n_scalars, name);
    float v = s ? s->value : 0.0f;
    return (s && s->given) || v != plain ? (size_t)snprintf(buf, len, " %s %g", name, v) : 0;
}

static void gemm_describe(const struct rep_result *r, char *buf, size_t len)
{
    struct gemm_dims m = gemm_dims_of(r->sizes, r->n_sizes);
    if (r->op == OP_SGEMM_STRIDED)
        snprintf(buf, len, "%ldx%ldx%ld lda %ld ldb %ld ldc %ld", m.M, m.N, m.K, m.lda, m.ldb, m.ldc);
    else
        snprintf(buf, len, "%ldx%ldx%ld", m.M, m.N, m.K);
    /* A row read back from JSON has the values but not which the kernel took. One the op never
     * noted (no layout: the case crashed or timed out first) has neither: none is shown. */
    size_t n = strlen(buf);
    int noted = r->layout[0] != 0;
    if (!strcmp(r->layout, "col"))
        n += (size_t)snprintf(buf + n, len - n, " col-major");
    if (n < len && noted)
        n += gemm_describe_scalar(r, "alpha", 1, buf + n, len - n);
    if (n < len && noted)
        gemm_describe_scalar(r, "beta", 0, buf + n, len - n);
}

static void gemm_name_element(long i, long j, char *buf, size_t len) { snprintf(buf, len, "C[%ld][%ld]", i, j); }

static void gemm_heat_shape(const struct rep_result *r, long *rows, long *cols)
{
    struct gemm_dims m = gemm_dims_of(r->sizes, r->n_sizes);
    *rows = m.M, *cols = m.N;
}

/* A shrunk sgemm_strided case keeps each stride's padding past its row. */
static void gemm_shrink_follow(const struct hb_case *from, struct hb_case *to)
{
    static const char *const names[3] = {"lda", "ldb", "ldc"}, *const rows[3] = {"K", "N", "N"};
    for (int i = 0; i < 3; i++)
        case_size_set(to->sizes, &to->n_sizes, names[i],
                      case_size(to, rows[i]) + case_size(from, names[i]) - case_size(from, rows[i]));
}

static void gemm_work(const struct hb_case *c, double *madds, double *elements)
{
    struct gemm_dims m = gemm_dims(c);
    *madds = (double)m.M * m.N * m.K;
    *elements = (double)m.M * m.K + (double)m.K * m.N + (double)m.M * m.N;
}

/* A, B and C as stored, padding included. */
static double gemm_case_bytes(const struct hb_case *c, const struct kern_set *ks)
{
    (void)ks;
    struct gemm_dims m = gemm_dims(c);
    return 4.0 * ((double)m.M * (m.lda > m.K ? m.lda : m.K) + (double)m.K * (m.ldb > m.N ? m.ldb : m.N) +
                  (double)m.M * (m.ldc > m.N ? m.ldc : m.N));
}

static void gemm_bench_heading(char *buf, size_t len, int runs, long n)
{
    (void)n;
    snprintf(buf, len, "SGEMM (C = A*B, fp32, uniform data; median of %d after 2 warm-ups)", runs);
}

/* n x n times n x n, stored by rows or by columns as the kernel reads them; alpha 1 and beta 0
 * for a kernel that takes them, so every kernel computes C = A*B. */
static int gemm_bench_point(const struct kern_desc *k, long n, struct hb_case *c, char *why, size_t len)
{
    (void)k, (void)why, (void)len;
    static const char *const sizes[3] = {"M", "N", "K"}, *const scalars[2] = {"alpha", "beta"};
    memset(c, 0, sizeof *c);
    c->op = OP_SGEMM;
    c->dist = DIST_UNIFORM; /* never time zeros: they can run faster than real data */
    c->seed = (uint64_t)n;
    for (int i = 0; i < 3; i++)
        case_size_set(c->sizes, &c->n_sizes, sizes[i], n);
    c->n_scalars = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(c->scalars[i].name, sizeof c->scalars[i].name, "%s", scalars[i]);
        c->scalars[i].value = i == GEMM_ALPHA_AT ? 1.0f : 0.0f;
        c->scalars[i].given = 1;
    }
    case_sizes_text(c->sizes, c->n_sizes, c->name, sizeof c->name);
    return 0;
}

static double gemm_bench_flops(const struct kern_desc *k, const struct hb_case *c)
{
    (void)k;
    struct gemm_dims m = gemm_dims(c);
    return 2.0 * m.M * m.N * (double)m.K;
}

static const struct op_bench gemm_bench = {OP_BENCH_FLOPS, gemm_bench_heading, gemm_bench_point, gemm_bench_flops};

/* The signature vocabulary (kernels/README.md): slots index gemm_layout's buffers, ints, floats. */
static const struct op_param gemm_params[] = {
    {"A", HB_PARAM_BUF, 0},   {"B", HB_PARAM_BUF, 1},     {"C", HB_PARAM_BUF, 2},    {"M", HB_PARAM_I32, 0},
    {"N", HB_PARAM_I32, 1},   {"K", HB_PARAM_I32, 2},     {"lda", HB_PARAM_I32, 3},  {"ldb", HB_PARAM_I32, 4},
    {"ldc", HB_PARAM_I32, 5}, {"alpha", HB_PARAM_F32, 0}, {"beta", HB_PARAM_F32, 1}, {NULL, 0, 0},
};

/* What sgemm and sgemm_strided share: everything but their case keys, default ABI, strides
 * and bench. */
#define GEMM_OP_STEPS                                                                                                  \
    .required_keys = "M N K", .scalar_keys = "alpha beta", .complete_case = gemm_complete_case, .grid_vars = "MNK",    \
    .unit = "elements", .takes_layout = 1, .params = gemm_params, .shrink_keys = "M N K", .work = gemm_work,           \
    .case_bytes = gemm_case_bytes, .prepare = gemm_prepare, .release = gemm_release, .reference = gemm_reference,      \
    .layout = gemm_layout, .init_output = gemm_init_output, .check_padding = gemm_check_padding,                       \
    .compare = gemm_compare, .note = gemm_note, .describe = gemm_describe, .name_element = gemm_name_element,          \
    .heat_shape = gemm_heat_shape

const struct op_desc op_sgemm = {
    .name = "sgemm",
    .size_keys = "M N K",
    .default_args = "A B C M N K",
    .vendor = 1,
    .bench = &gemm_bench,
    GEMM_OP_STEPS,
};

const struct op_desc op_sgemm_strided = {
    .name = "sgemm_strided",
    .size_keys = "M N K lda ldb ldc",
    .default_args = "A B C M N K lda ldb ldc",
    .args_needed = "lda ldb ldc",
    .args_needed_why = "cases need their strides",
    .shrink_follow = gemm_shrink_follow,
    GEMM_OP_STEPS,
};
