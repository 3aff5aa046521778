/* SPDX-License-Identifier: MIT */
/* ref.h: the references every verdict is measured against, computed once per case on the
 * host and shared by every kernel, backend and width: OpenBLAS sgemm (the float result a
 * user would compare with), float64 products and sums (the truth), and per output the
 * figures the error bound reads (compare.c derives it): the gauge |A||B| or sum |x|, the
 * spread, what flushing subnormals may change, and whether every order is exact.
 * Knows nothing of devices or verdicts. */
#ifndef HB_REF_H
#define HB_REF_H

#include <stddef.h>

/* Per output (C element or block partial), the sum of its terms t_k (a_ik b_kj, or x_i):
 *   gauge   sum |t_k|: sblat3's scale, and the largest any partial sum can be
 *   spread  sqrt(sum t_k^2): the size of a random-signed walk through the terms
 *   flush   what a device that flushes subnormals to zero may lose: sum |t_k| over terms with
 *           a subnormal factor, plus FLT_MIN per term and per addition where the terms lie
 *           off the FLT_MIN grid (only there can a product or partial sum be subnormal);
 *           NULL when no output has either
 *   exact   1 where every summation order, fused or not, flushing or not, gives the float64
 *           value exactly: all terms are multiples of a grid q >= FLT_MIN and the gauge is at
 *           most 2^24 q, so every partial sum is a float */
struct ref_sgemm {
    long M, N, K;
    float alpha, beta; /* C = alpha A B + beta C0: the terms are alpha a_ik b_kj and beta c0_ij */
    long terms;        /* terms per output: K, plus one where beta and C0 are given */
    float *c32;        /* cblas_sgemm */
    double *c64;       /* cblas_dgemm on the promoted inputs */
    double *gauge;     /* (|A| |B|)_ij */
    double *spread;    /* sqrt((A.^2)(B.^2))_ij */
    double *flush;
    unsigned char *exact;
};

struct ref_reduce {
    long n, chunk, blocks;
    double *partial64; /* per block: float64 sum of its chunk */
    double *gauge;     /* per block: sum of |x| */
    double *spread;    /* per block: sqrt(sum of x^2) */
    double *flush;
    unsigned char *exact;
    double total64; /* compensated sum of all of x */
    double total_abs;
};

void ref_sgemm_compute(struct ref_sgemm *r, const float *A, const float *B, long M, long N, long K);
/* The BLAS form C = alpha A B + beta C0 (C0 row-major M x N, NULL or beta 0: not a term), with
 * sblat3's gauge |alpha||A||B| + |beta||C0|. Exactness is claimed only where alpha and beta are
 * 0 or powers of two (then scaling is exact in every order), and on the grid of all terms. */
void ref_sgemm_compute_scaled(struct ref_sgemm *r, const float *A, const float *B, const float *C0, float alpha,
                              float beta, long M, long N, long K);
void ref_sgemm_free(struct ref_sgemm *r);
/* Where the arrays a reference keeps come from and go back to (NULL, NULL: calloc and free);
 * the harness puts them in memory its workers share (arena.h). Set before computing any. */
void ref_set_keep(void *(*alloc)(size_t n, size_t size), void (*release)(void *p));
void ref_reduce_compute(struct ref_reduce *r, const float *x, long n, long chunk);
/* The same for float64 x (an f64 reduction): truths by compensated sums, no flush (x holds no
 * float64 subnormal the generators make) and no exactness claim of its own. */
void ref_reduce_compute_f64(struct ref_reduce *r, const double *x, long n, long chunk);
void ref_reduce_free(struct ref_reduce *r);

/* OpenBLAS's build description, for reports ("OpenBLAS 0.3.21 ..."). */
const char *ref_library(void);

/* OpenBLAS's DYNAMIC_ARCH builds fall back to their Prescott (SSE3) kernels on a CPU newer
 * than they know (Debian 12's 0.3.21 on the H200's host: float64 references several times
 * slower). The core to ask for instead (OPENBLAS_CORETYPE, read when the library loads), or
 * NULL: when the user chose one, when OpenBLAS did not fall back, or when the CPU has
 * neither AVX-512 nor AVX2 with FMA. ref_core_for decides from the given facts. */
const char *ref_better_core(void);

/* OpenBLAS threads per call while `callers` threads call it at once, from its current count:
 * at most 4 with several callers (more oversubscribe the cores: on the H200's 16-core host the
 * standard tier's references took 3.7 s at 16 per call, 2.0 s at 4), and never 1 unless it is
 * 1 already (one thread sums long K in another order: the float reference, and with it the
 * ULP figures, would change; any two or more give the same bits). */
int ref_blas_threads_for(int callers, int current);
int ref_blas_threads(void);
void ref_set_blas_threads(int n);
const char *ref_core_for(const char *chosen, const char *corename, int avx512, int avx2_fma);

#endif
