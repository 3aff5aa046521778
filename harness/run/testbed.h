/* SPDX-License-Identifier: MIT */
/* testbed.h: one case of one kernel on an open backend, in phases (testbed.c), in a worker. It
 * hands on each launch's output and what it saw; the figures are verify.c's, in the parent, and
 * the verdict verdict.c's. */
#ifndef HB_TESTBED_H
#define HB_TESTBED_H

#include "backend_call.h"
#include "manifest.h"
#include "op.h"
#include "protocol.h"

/* Device buffers kept between cases, one per argument slot: allocation is the dearest part of
 * a small case on a GPU. */
struct tb_pool {
    hb_buf *buf[HB_MAX_BUF_ARGS];
    size_t bytes[HB_MAX_BUF_ARGS];
    int size_classes; /* sizes round up to powers of two (else only an exact size is reused) */
    /* Host images, what is uploaded and what came back, kept from case to case: a fresh
     * allocation of a large one costs a page fault per 4 KiB on every case. Page-locked
     * where the backend offers it (`locked`: freed by the backend). */
    void *host[HB_MAX_BUF_ARGS][2];
    size_t host_bytes[HB_MAX_BUF_ARGS][2];
    unsigned char locked[HB_MAX_BUF_ARGS][2];
};

void tb_pool_init(struct tb_pool *pool, unsigned caps, int sanitized);
void tb_pool_release(struct bcall *bk, struct tb_pool *pool);

/* An open backend and kernel (NULL: the vendor library) and what every case shares; `sent`
 * takes each launch's record (LAUNCH: its launch, seen, guard, fault and kernel_ms fields) and
 * its n outputs (every output buffer in the layout's order, bytes[i] of outs[i] each) as they
 * came back, to send them on. */
struct tb_env {
    struct bcall *bk;
    hb_kern *kern;
    struct tb_pool *pool;
    int repeats;
    void (*sent)(void *arg, struct msg *launch, const void *const outs[], const size_t bytes[], int n);
    void *arg;
};

/* Runs case d of kernel k (NULL: the vendor library) env->repeats times, each launch through
 * env->sent; fills res (a RESULT) with the launches sent, CLS_API in `seen` when a backend
 * call failed, and the backend's words; adds each phase's time to phase_ms (protocol.h's PH_*).
 * Returns nonzero when the backend reported an API error: the device context may then be
 * unusable. */
int tb_run_case(const struct tb_env *env, const struct kern_desc *k, const struct case_data *d, struct msg *res,
                double phase_ms[]);

#endif
