/* ref.h: the references every verdict is measured against, computed once per case on the
 * host and shared by every kernel, backend and width: OpenBLAS sgemm (the float result a
 * user would compare with), float64 products and sums (the truth), and the gauges
 * |A||B| and sum |x| that scale the error bounds. Knows nothing of devices or verdicts. */
#ifndef HB_REF_H
#define HB_REF_H

#include <stddef.h>

struct ref_sgemm {
    long M, N, K;
    float *c32;     /* cblas_sgemm */
    double *c64;    /* cblas_dgemm on the promoted inputs */
    double *gauge;  /* (|A| |B|)_ij in float64 */
    double *flush;  /* what flushing subnormal inputs to zero may change, NULL when there are none */
};

struct ref_reduce {
    long n, chunk, blocks;
    double *partial64; /* per block: float64 sum of its chunk */
    double *gauge;     /* per block: sum of |x| */
    double *flush;     /* per block: sum of |x| over subnormal x, NULL when there are none */
    double total64;    /* compensated sum of all of x */
    double total_abs;
};

void ref_sgemm_compute(struct ref_sgemm *r, const float *A, const float *B, long M, long N, long K);
void ref_sgemm_free(struct ref_sgemm *r);
void ref_reduce_compute(struct ref_reduce *r, const float *x, long n, long chunk);
void ref_reduce_free(struct ref_reduce *r);

/* OpenBLAS's build description, for reports ("OpenBLAS 0.3.21 ..."). */
const char *ref_library(void);

#endif
