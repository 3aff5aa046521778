/* SPDX-License-Identifier: MIT */
/* backend_call.c: see backend_call.h. Each optional method of the table (backend.h: NULL where a
 * backend, or an older ABI the loader upgraded, has none) is tested here and nowhere else, with
 * the fallback the core has always used. It holds no state but the context and its words. */
#include "backend_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* A call is about to be made: the door's words of an earlier one no longer stand. */
static struct bcall *bcall_fresh(struct bcall *b)
{
    b->why[0] = '\0';
    return b;
}

void bcall_use(struct bcall *b, const struct hb_backend *be)
{
    memset(b, 0, sizeof *b);
    b->be = be;
}

int bcall_backend(struct bcall *b, const char *name, struct hb_err *err)
{
    bcall_use(b, ldr_open(name, err));
    return b->be ? 0 : -1;
}

const char *bcall_langs(const struct bcall *b) { return b->be->langs; }

const char *bcall_vendor(const struct bcall *b) { return b->be->vendor_sgemm ? b->be->vendor_name : NULL; }

const char *bcall_platform(const struct bcall *b) { return b->be->platform; }

unsigned bcall_caps(const struct bcall *b) { return b->be->caps; }

int bcall_list_devices(const struct bcall *b, struct hb_device_info *out, int max, char *err, size_t errlen)
{
    return b->be->list_devices(out, max, err, errlen);
}

int bcall_open(struct bcall *b, int device, int width, char *err, size_t errlen)
{
    return bcall_fresh(b)->be->open(&b->ctx, device, width, err, errlen);
}

void bcall_close(struct bcall *b)
{
    if (b->ctx)
        b->be->close(b->ctx);
    b->ctx = NULL;
}

const char *bcall_error(const struct bcall *b) { return b->why[0] ? b->why : b->be->last_error(b->ctx); }

int bcall_alloc(struct bcall *b, size_t bytes, hb_buf **out) { return bcall_fresh(b)->be->alloc(b->ctx, bytes, out); }

void bcall_release(struct bcall *b, hb_buf *buf) { b->be->release(b->ctx, buf); }

int bcall_upload(struct bcall *b, hb_buf *dst, size_t offset, const void *src, size_t bytes)
{
    return bcall_fresh(b)->be->upload(b->ctx, dst, offset, src, bytes);
}

int bcall_download(struct bcall *b, hb_buf *src, size_t offset, void *dst, size_t bytes)
{
    return bcall_fresh(b)->be->download(b->ctx, src, offset, dst, bytes);
}

/* One batch: in one call where the backend takes several at once (each call of a Vulkan
 * staging path is a submission and a wait), else a call per transfer. */
static int bcall_transfer_many(struct bcall *b, const struct hb_transfer *t, int n, int upload)
{
    int (*many)(hb_ctx *, const struct hb_transfer *, int) = upload ? b->be->upload_many : b->be->download_many;
    bcall_fresh(b);
    if (many && n > 1)
        return many(b->ctx, t, n);
    for (int i = 0; i < n; i++)
        if ((upload ? b->be->upload(b->ctx, t[i].buf, t[i].offset, t[i].host, t[i].bytes)
                    : b->be->download(b->ctx, t[i].buf, t[i].offset, t[i].host, t[i].bytes)) != HB_OK)
            return HB_ERROR;
    return HB_OK;
}

int bcall_upload_many(struct bcall *b, const struct hb_transfer *t, int n) { return bcall_transfer_many(b, t, n, 1); }

int bcall_download_many(struct bcall *b, const struct hb_transfer *t, int n) { return bcall_transfer_many(b, t, n, 0); }

void *bcall_host_alloc(struct bcall *b, size_t bytes, int *locked)
{
    void *p = b->be->host_alloc ? b->be->host_alloc(b->ctx, bytes) : NULL;
    *locked = p != NULL;
    return p ? p : xcalloc(bytes, 1);
}

void bcall_host_free(struct bcall *b, void *p, int locked)
{
    if (locked)
        b->be->host_free(b->ctx, p);
    else
        free(p);
}

int bcall_load(struct bcall *b, const struct hb_kernel_spec *spec, void (*announce)(void *arg), void *arg,
               hb_kern **out)
{
    const struct hb_backend *be = bcall_fresh(b)->be;
    if (!(be->caps & HB_CAP_IN_PROCESS))
        return be->load(b->ctx, spec, out);
    int rc = be->prepare ? be->prepare(b->ctx, spec) : HB_OK;
    if (rc != HB_OK)
        return rc;
    if (announce)
        announce(arg);
    rc = be->load(b->ctx, spec, out);
    if (rc != HB_UNSUPPORTED)
        return rc;
    snprintf(b->why, sizeof b->why, "a SKIP from the load, after the kernel's code could run, is not believed: %.150s",
             be->last_error(b->ctx));
    return HB_ERROR;
}

void bcall_unload(struct bcall *b, hb_kern *kern) { b->be->unload(b->ctx, kern); }

int bcall_launch(struct bcall *b, hb_kern *kern, const unsigned grid[3], const struct hb_args *args, double *device_ms)
{
    return bcall_fresh(b)->be->launch(b->ctx, kern, grid, args, device_ms);
}

int bcall_has_vendor_sgemm(const struct bcall *b) { return b->be->vendor_sgemm != NULL; }

int bcall_has_copy(const struct bcall *b) { return b->be->copy != NULL; }

/* A peer the backend lacks: the door's words, and a status that is never a pass. */
static int bcall_lacks(struct bcall *b, const char *what)
{
    snprintf(b->why, sizeof b->why, "backend %s has no %s", b->be->name ? b->be->name : "?", what);
    return HB_UNSUPPORTED;
}

int bcall_vendor_sgemm(struct bcall *b, const struct hb_args *args, double *device_ms)
{
    if (!bcall_fresh(b)->be->vendor_sgemm)
        return bcall_lacks(b, "vendor library");
    return b->be->vendor_sgemm(b->ctx, args, device_ms);
}

int bcall_copy(struct bcall *b, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes,
               double *device_ms)
{
    if (!bcall_fresh(b)->be->copy)
        return bcall_lacks(b, "copy");
    return b->be->copy(b->ctx, dst, dst_off, src, src_off, bytes, device_ms);
}

int bcall_faults(struct bcall *b, struct hb_fault *reads, struct hb_fault *writes)
{
    memset(reads, 0, sizeof *reads);
    memset(writes, 0, sizeof *writes);
    if (!b->be->faults || b->be->faults(b->ctx, reads, writes) != HB_OK) {
        memset(reads, 0, sizeof *reads);
        memset(writes, 0, sizeof *writes);
        return 0;
    }
    return 1;
}

const char *bcall_kernel_origin(struct bcall *b, hb_kern *kern)
{
    return b->be->kernel_origin ? b->be->kernel_origin(b->ctx, kern) : NULL;
}

int bcall_kernel_info(struct bcall *b, hb_kern *kern, struct hb_kernel_info *out)
{
    return b->be->kernel_info && b->be->kernel_info(b->ctx, kern, out) == HB_OK;
}
