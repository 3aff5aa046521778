/* SPDX-License-Identifier: MIT */
/* cref.h: a user's C code run as the harness's own reference. It is built with the host's C
 * compiler into a shared object, and each call runs in a child process on buffers that lie
 * between inaccessible pages (inputs read-only), so a crash, a hang or an access outside its
 * buffers is contained and named. It knows nothing of kernels or cases: callers hand bytes. */
#ifndef HB_CREF_H
#define HB_CREF_H

#include <stddef.h>

#include "util.h"

/* The host's C compiler and flags: -O2, no fast-math, a*b+c never contracted (so the result is
 * the same on every x86-64 host). $CC overrides the compiler. */
#define CREF_FLAGS "-O2 -fPIC -shared -ffp-contract=off"

/* Builds the C file `source` and the C text `generated` (its caller's glue) into a shared object
 * in a folder of this process (removed when it exits). Returns its path (malloc'd), or NULL
 * with err holding the compiler's first error line. */
char *cref_build(const char *source, const char *generated, double timeout_s, struct hb_err *err);

/* One argument region of a call: its bytes are copied in before the call and, when writable,
 * back after it. The function sees each region's address in order. */
struct cref_buf {
    const char *name; /* for messages: "x", "scalar eps" */
    void *data;
    size_t bytes;
    int writable;
};

/* Calls `void entry(void *const *args)` from the shared object `so` in a child process with the
 * regions' addresses. The call is done when that process has returned from it and ended every
 * process it started. 0, or -1 with err saying what happened (a signal, the first access outside
 * a region or a write to an input, an exit before returning, processes left running, the time
 * out, an exit status) and the last line the code printed. */
int cref_call(const char *so, const char *entry, struct cref_buf *bufs, int n, double timeout_s, struct hb_err *err);

/* From a signal handler (async-signal-safe): removes this process's build folder now, as its
 * atexit handler would (kill the compilers first: child_kill_children_now). */
void cref_remove_now(void);

#endif
