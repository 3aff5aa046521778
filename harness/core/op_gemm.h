/* SPDX-License-Identifier: MIT */
/* op_gemm.h: what the two halves of the sgemm ops share (op_gemm.c lays out and checks,
 * op_gemm_data.c makes a case's matrices and references). Private to them; the core sees only
 * op.h. */
#ifndef HB_OP_GEMM_H
#define HB_OP_GEMM_H

#include <stddef.h>

#include "case.h"
#include "manifest.h"
#include "op.h"
#include "ref.h"

/* sblat3's "rogue" value: what the padding between rows (or columns) holds. Finite and huge,
 * so a kernel that reads it as data is far off, and exact bits to check that it survives. */
#define GEMM_ROGUE_VALUE (-1.0e10f)

/* The scalars a kernel that declares alpha or beta gets when its case names none. Powers of
 * two, so every way of applying them is exact and exact cases stay exact (ref.h); alpha is not
 * 1 and not a whole number (a kernel that ignores it, or truncates it to int, is off), beta is
 * neither 0 nor 1 and negative (a kernel that ignores beta, or adds C, is off). */
#define GEMM_ALPHA 0.5f
#define GEMM_BETA (-2.0f)

/* At most one reference per (alpha, beta) a kernel may see: none, alpha, beta, both. */
#define GEMM_MAX_REFS 4

/* One case's data, shared by every kernel that runs it (the case_data's ref), in memory the
 * workers share: inputs and the references' sizes and scalars; the references' arrays are the
 * parent's alone. */
struct gemm_data {
    float *a, *b;       /* A (M x K) and B (K x N), row-major and compact */
    float *c;           /* the C given to kernels that take beta (M x N, row-major); NULL when none does */
    float *img[2][3];   /* [column-major][A, B, C] stored with the case's leading dimensions and
                           rogue padding, NULL when no kernel needs it; may be a, b or c itself */
    size_t img_n[2][3]; /* floats in each */
    int n_refs;
    struct gemm_ref {
        float alpha, beta;
        struct ref_sgemm r;
    } refs[GEMM_MAX_REFS];
};

static inline int gemm_strided(const struct hb_case *c) { return c->op == OP_SGEMM_STRIDED; }

/* A case's (or a record's) sizes by name: M x K times K x N, and for sgemm_strided the row
 * strides lda, ldb, ldc (0 for sgemm: gemm_ld says what a kernel gets). */
struct gemm_dims {
    long M, N, K, lda, ldb, ldc;
};
struct gemm_dims gemm_dims_of(const struct case_size *s, int n);
static inline struct gemm_dims gemm_dims(const struct hb_case *c) { return gemm_dims_of(c->sizes, c->n_sizes); }
/* Where alpha and beta stand in a case's scalars (the ops' scalar_keys, "alpha beta"). */
enum { GEMM_ALPHA_AT, GEMM_BETA_AT };

/* Leading dimensions of A, B, C stored by rows or by columns (op_gemm_data.c says how). */
void gemm_ld(const struct hb_case *c, int col, long ld[3]);
/* The alpha and beta kernel k computes with on case c: 1 and 0 for what it does not take. */
void gemm_scalars(const struct hb_case *c, const struct kern_desc *k, float *alpha, float *beta);
/* The reference for (alpha, beta); gemm_prepare made one for every kernel of the case. */
const struct ref_sgemm *gemm_ref(const struct gemm_data *g, float alpha, float beta);

void gemm_prepare(struct case_data *d, const struct kern_set *ks);
void gemm_reference(struct case_data *d, const struct kern_set *ks);
void gemm_release(struct case_data *d);

#endif
