/* verdict.h: the vocabulary every layer shares: ops, verdicts, failure classes.
 * Only names and numbers; the rules that pick a verdict live in compare.c. */
#ifndef HB_VERDICT_H
#define HB_VERDICT_H

/* sgemm_strided is sgemm with leading dimensions (lda >= K, ldb >= N, ldc >= N), netlib
 * sblat3 style: the padding between rows holds rogue values a kernel must neither read as
 * data nor overwrite. */
enum hb_op { OP_SGEMM, OP_REDUCE, OP_SGEMM_STRIDED, OP_COUNT };
const char *op_name(enum hb_op op);
int op_parse(const char *s, enum hb_op *out);
/* sgemm or sgemm_strided: an M x N x K product. */
int op_is_gemm(enum hb_op op);

enum hb_verdict { V_PASS, V_SUSPECT, V_FAIL, V_XFAIL, V_XPASS, V_SKIP, V_ERROR, V_COUNT };
const char *verdict_name(enum hb_verdict v);
/* FAIL, XPASS and ERROR make the run fail. */
int verdict_fails_run(enum hb_verdict v);

/* What went wrong, as a bit set: a launch can both write out of bounds and compute wrong values. */
enum hb_class {
    CLS_WRONG = 1u << 0,          /* values beyond the error bound */
    CLS_NAN = 1u << 1,            /* NaN/Inf where the reference has none, or the reverse */
    CLS_UNWRITTEN = 1u << 2,      /* poison left in the output */
    CLS_OOB = 1u << 3,            /* a guard band around a buffer was written */
    CLS_INPUT_MODIFIED = 1u << 4, /* an input changed during the launch */
    CLS_NONDET = 1u << 5,         /* two identical launches differ bitwise */
    CLS_TIMEOUT = 1u << 6,
    CLS_CRASH = 1u << 7,          /* the child died on a signal */
    CLS_API = 1u << 8,            /* the backend reported an API error */
    CLS_OOB_READ = 1u << 9,       /* a read outside an argument's data (seen exactly: emulator) */
};
#define CLS_COUNT 10
/* Writes the class names joined by '+' into buf. */
void class_names(unsigned classes, char *buf, unsigned len);
/* Parses one class name ("oob"); 0 on success. "wrong" also accepts any numeric class. */
int class_parse(const char *s, unsigned *out);

#endif
