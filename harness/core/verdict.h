/* SPDX-License-Identifier: MIT */
/* verdict.h: verdicts and failure classes, and every rule that turns error figures into a
 * verdict: a case's verdict (with canaries, off widths and the known-bug list) and a known-bad
 * group's XPASS. compare.c only measures; run, supervise and merge ask here. */
#ifndef HB_VERDICT_H
#define HB_VERDICT_H

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
    CLS_CRASH = 1u << 7,      /* the child died on a signal */
    CLS_API = 1u << 8,        /* the backend reported an API error */
    CLS_OOB_READ = 1u << 9,   /* a read outside an argument's data (seen exactly: emulator) */
    CLS_REFERENCE = 1u << 10, /* the harness had no reference (a custom op's C reference crashed,
                                 touched memory outside its buffers, hung, or did not build) */
    CLS_NO_CASE = 1u << 11,   /* no case of the catalogue can run the kernel: a group row */
};
#define CLS_COUNT 12
/* Classes that mean the kernel could not be judged: an ERROR, not a FAIL. */
#define CLS_ERRORS (CLS_TIMEOUT | CLS_CRASH | CLS_API | CLS_REFERENCE | CLS_NO_CASE)
/* Writes the class names joined by '+' into buf. */
void class_names(unsigned classes, char *buf, unsigned len);
/* Parses one class name ("oob"); 0 on success. */
int class_parse(const char *s, unsigned *out);

struct cmp_result;
struct known_bug;

/* The verdict for one case. expected_bad: the kernel is known-bad at this width; expect: the
 * classes a canary must produce (0: any failure catches it); allowed: classes the kernel
 * declares by design (CLS_NONDET for deterministic = no: launches that differ, each within the
 * bound, are reported with their ULP spread, not failed); bug: the known-bug entry that lists
 * this case, or NULL. `why` gets a one-line reason. */
enum hb_verdict verdict_case(const struct cmp_result *r, int expected_bad, unsigned expect, unsigned allowed,
                             const struct known_bug *bug, char *why, unsigned why_len);

/* Whether a known-bad kernel's group is an XPASS: it ran cases and passed every one (an
 * ERROR is no pass, a catch is no pass). */
int verdict_group_xpass(int ran, int passed);

#endif
