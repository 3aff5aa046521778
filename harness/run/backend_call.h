/* SPDX-License-Identifier: MIT */
/* backend_call.h: the one door to a loaded backend. Every call the harness makes into a
 * backend's table goes through here (the worker, the testbed, the probe, the oracle and bench),
 * so each optional method is tested for NULL here once, with its fallback, and the rule of a
 * kernel's load (prepare first; a SKIP is believed only from prepare where kernels run in this
 * process) lives here alone. It decides no verdict and runs in children only, as the loader. */
#ifndef HB_BACKEND_CALL_H
#define HB_BACKEND_CALL_H

#include <stddef.h>

#include "backend.h"
#include "util.h"

/* A backend as the door holds it: its table (upgraded by the loader) and, once open, its
 * context. `why` holds the door's own words for the last status it made itself ("" when the
 * backend's last_error stands). */
struct bcall {
    const struct hb_backend *be;
    hb_ctx *ctx;
    char why[256];
};

/* Loads backend `name` (ldr_open) into b: 0, or -1 with err. */
int bcall_backend(struct bcall *b, const char *name, struct hb_err *err);
/* The door over a table already loaded (bcall_backend's, or a test's). */
void bcall_use(struct bcall *b, const struct hb_backend *be);

/* What the backend says of itself, without a device. bcall_vendor: the vendor library's name,
 * NULL where there is none; bcall_platform: the API's platform, NULL where it is the obvious
 * one. */
const char *bcall_langs(const struct bcall *b);
const char *bcall_vendor(const struct bcall *b);
const char *bcall_platform(const struct bcall *b);
unsigned bcall_caps(const struct bcall *b);
int bcall_list_devices(const struct bcall *b, struct hb_device_info *out, int max, char *err, size_t errlen);

/* Opens device `device` at `width` (its env already set): an hb_status, err saying why not. */
int bcall_open(struct bcall *b, int device, int width, char *err, size_t errlen);
void bcall_close(struct bcall *b);
/* Words for the last failed call: the door's own, else the backend's. */
const char *bcall_error(const struct bcall *b);

int bcall_alloc(struct bcall *b, size_t bytes, hb_buf **out);
void bcall_release(struct bcall *b, hb_buf *buf);
int bcall_upload(struct bcall *b, hb_buf *dst, size_t offset, const void *src, size_t bytes);
int bcall_download(struct bcall *b, hb_buf *src, size_t offset, void *dst, size_t bytes);
/* n transfers in one go where the backend takes batches (ABI 4), else one call each. */
int bcall_upload_many(struct bcall *b, const struct hb_transfer *t, int n);
int bcall_download_many(struct bcall *b, const struct hb_transfer *t, int n);
/* Host memory for a buffer's image: page-locked where the backend offers it (*locked 1), else
 * zeroed heap memory (*locked 0; never NULL). bcall_host_free takes back either. */
void *bcall_host_alloc(struct bcall *b, size_t bytes, int *locked);
void bcall_host_free(struct bcall *b, void *p, int locked);

/* Loads spec's kernel: the one way a kernel is loaded. Where kernels run in this process
 * (HB_CAP_IN_PROCESS, the emulator), load runs the kernel's own code (its static constructors),
 * which could then claim anything: the backend's prepare decides first what it cannot run
 * (its HB_UNSUPPORTED is returned as it is, and load is not called), then `announce` (NULL:
 * none) is called, just before the kernel's code can run, and an HB_UNSUPPORTED from load is
 * not believed: it is returned as HB_ERROR. Elsewhere load alone decides, and is believed. */
int bcall_load(struct bcall *b, const struct hb_kernel_spec *spec, void (*announce)(void *arg), void *arg,
               hb_kern **out);
void bcall_unload(struct bcall *b, hb_kern *kern);
int bcall_launch(struct bcall *b, hb_kern *kern, const unsigned grid[3], const struct hb_args *args, double *device_ms);

/* The optional peers: HB_UNSUPPORTED, with the door's words, where the backend has none. */
int bcall_has_vendor_sgemm(const struct bcall *b);
int bcall_has_copy(const struct bcall *b);
int bcall_vendor_sgemm(struct bcall *b, const struct hb_args *args, double *device_ms);
int bcall_copy(struct bcall *b, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes,
               double *device_ms);

/* The last launch's exact out-of-bounds reads and writes: 1 when the backend sees every access
 * and said, else 0 with both zeroed (a GPU: guard bands and memcheck stand in). */
int bcall_faults(struct bcall *b, struct hb_fault *reads, struct hb_fault *writes);
/* The binary a loaded kernel runs, NULL where the backend does not say. */
const char *bcall_kernel_origin(struct bcall *b, hb_kern *kern);
/* A loaded kernel's figures (registers, occupancy): 1 when the backend told them. */
int bcall_kernel_info(struct bcall *b, hb_kern *kern, struct hb_kernel_info *out);

#endif
