/* SPDX-License-Identifier: MIT */
/* verify.h: the parent's check of one case from what its worker sent (protocol.h). Each
 * launch's outputs, every output buffer in the layout's order as it came back from the device,
 * are judged here against references no worker holds: padding intact (on the first output), the
 * op's comparison of every buffer on the first launch, bitwise equality with it on later ones
 * (a repeat that differs judged on its own where the kernel says deterministic = no, and
 * checked against the bound otherwise; an element of a pure output that kept each poison its
 * launch started from is unwritten, not a difference); the worker's observations (guard bands, faults, inputs,
 * failed calls) are folded in. It makes a row's figures, not its verdict (supervise.c asks
 * verdict.c), and reads no pipe (sched_read.c does). */
#ifndef HB_VERIFY_H
#define HB_VERIFY_H

#include "manifest.h"
#include "op.h"
#include "protocol.h"

struct vfy_case {
    const struct kern_desc *k; /* NULL: the vendor library */
    const struct case_data *d;
    const struct op_desc *op;
    struct op_layout lay;         /* the parent's own layout of the case: what each output must be */
    size_t out_bytes;             /* every output's bytes together: what follows a LAUNCH */
    int first_out;                /* the first output (the op's padding is on it), -1: none */
    int launches;                 /* outputs judged so far */
    int never_judged;             /* elements no launch wrote have been counted (vfy_never_written) */
    void *got[HB_MAX_BUF_ARGS];   /* each output: where the next launch's is read (NULL: not one) */
    void *first[HB_MAX_BUF_ARGS]; /* each output as the first launch left it, for the repeats */
    struct rep_result r;
};

/* Starts the case: row holds its identity and case fields; the op's note (scalars, storage)
 * and the threads a launch runs are added here. */
void vfy_begin(struct vfy_case *v, const struct kern_desc *k, const struct case_data *d, const struct rep_result *row);
/* Where byte `at` of a LAUNCH's outputs (0 to out_bytes) is read, with the bytes that follow it
 * in the same buffer in *room. */
void *vfy_dest(struct vfy_case *v, size_t at, size_t *room);
/* Whether a LAUNCH's buffers are the case's (1), else 0 with why in err. */
int vfy_accepts(const struct vfy_case *v, const struct msg *launch, struct hb_err *err);
/* Judges the outputs now in v->got with what the LAUNCH record says was seen. */
void vfy_launch(struct vfy_case *v, const struct msg *launch);
/* The case's RESULT: a failed call, the backend's words, the binary, the child's time. */
void vfy_end(struct vfy_case *v, const struct msg *result);
void vfy_free(struct vfy_case *v);

#endif
