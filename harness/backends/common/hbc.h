/* SPDX-License-Identifier: MIT */
/* hbc.h: what every backend would otherwise write again: the range check of a buffer
 * transfer, with one wording of its error, and the CUDA driver's work-queue setting. Header-only
 * and API-free, so backends share it without including each other. */
#ifndef HB_HBC_H
#define HB_HBC_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether [off, off + bytes) lies inside a buffer of `size` bytes; if not, says so in err. */
static inline int hbc_range_ok(size_t size, size_t off, size_t bytes, const char *what, char *err, size_t errlen)
{
    if (off <= size && bytes <= size - off)
        return 1;
    snprintf(err, errlen, "%s: range [%zu, +%zu) outside a %zu-byte buffer", what, off, bytes, size);
    return 0;
}

/* One hardware work queue per CUDA context, unless the user chose a number: the harness runs
 * one stream, and a context with the default eight queues takes 2.3x as long to make. A
 * kernel's sticky error ends its process (every context of it, and any made after, fail on
 * the H200's driver 580), so a faulting kernel pays a context per faulting case, and the GPU
 * makes contexts one at a time: 8 faulting processes at once took 2.6 s, 1.5 s with one queue
 * (docs/performance.md). HIP on NVIDIA runs on the same driver; AMD's runtime ignores it. */
static inline void hbc_one_work_queue(void) { setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0); }

#endif
