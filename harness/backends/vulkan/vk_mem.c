/* SPDX-License-Identifier: MIT */
/* vk_mem.c: the Vulkan backend's buffers, host transfers, device-to-device copies and the
 * one-command-buffer submit-and-wait path every operation shares (with timestamps). Memory is
 * host-visible where the device has one heap and device-local behind staging otherwise.
 * It does not pool or suballocate: each buffer is one allocation, freed by release(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hbc.h"
#include "vk_internal.h"

/* A fence wait this long means a hung kernel; the core's per-case timeout normally kills the
 * child first, and the largest lavapipe SGEMM we run takes about a minute. */
#define VK_FENCE_TIMEOUT_NS (600ull * 1000000000ull)

/* Kernel buffers go to device-local memory behind a staging buffer when the device has a
 * heap of its own (a discrete GPU: the bench must measure its memory); where all memory is
 * one heap (lavapipe, integrated GPUs) they are simply host-visible and mapped, unless
 * HB_VK_STAGING=1 asks for the staging path anyway (tests run a discrete GPU's path there). */
void vk_choose_memory(hb_ctx *ctx)
{
    int device_heap = 0, host_heap = 0;
    for (uint32_t i = 0; i < ctx->mem.memoryHeapCount; i++) {
        if (ctx->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            device_heap = 1;
        else
            host_heap = 1;
    }
    const char *forced = getenv("HB_VK_STAGING");
    ctx->staging = (device_heap && host_heap) || (forced && !strcmp(forced, "1"));
}

/* The first memory type allowed by `bits` having all of `want`, preferring ones with
 * `prefer` and without `avoid`; UINT32_MAX when none has `want`. */
static uint32_t vk_memory_type(const hb_ctx *ctx, uint32_t bits, VkMemoryPropertyFlags want,
                               VkMemoryPropertyFlags prefer, VkMemoryPropertyFlags avoid)
{
    uint32_t best = UINT32_MAX;
    int best_score = -1;
    for (uint32_t i = 0; i < ctx->mem.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = ctx->mem.memoryTypes[i].propertyFlags;
        if (!(bits & (1u << i)) || (f & want) != want)
            continue;
        int score = ((f & prefer) == prefer ? 2 : 0) + ((f & avoid) ? 0 : 1);
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

/* Creates a buffer with its own memory; host-visible ones are mapped for their lifetime. */
static int vk_buffer_create(hb_ctx *ctx, size_t bytes, int host, VkBuffer *buf, VkDeviceMemory *mem, void **map)
{
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes ? bytes : 4, /* Vulkan has no empty buffers */
        .usage =
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    int st = vk_check(ctx, vkCreateBuffer(ctx->dev, &bci, NULL, buf), "vkCreateBuffer");
    if (st != HB_OK)
        return st;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->dev, *buf, &req);
    VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type =
        host
            ? vk_memory_type(ctx, req.memoryTypeBits, hv,
                             ctx->staging ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)
            : vk_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    if (type == UINT32_MAX) {
        vkDestroyBuffer(ctx->dev, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        return vk_fail(ctx, HB_ERROR, "no %s memory type for a %zu-byte buffer",
                       host ? "host-visible coherent" : "device-local", bytes);
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    st = vk_check(ctx, vkAllocateMemory(ctx->dev, &mai, NULL, mem), "vkAllocateMemory");
    if (st == HB_OK)
        st = vk_check(ctx, vkBindBufferMemory(ctx->dev, *buf, *mem, 0), "vkBindBufferMemory");
    if (st == HB_OK && host)
        st = vk_check(ctx, vkMapMemory(ctx->dev, *mem, 0, VK_WHOLE_SIZE, 0, map), "vkMapMemory");
    if (st != HB_OK) {
        vkDestroyBuffer(ctx->dev, *buf, NULL);
        if (*mem)
            vkFreeMemory(ctx->dev, *mem, NULL);
        *buf = VK_NULL_HANDLE;
        *mem = VK_NULL_HANDLE;
    }
    return st;
}

int vk_alloc(hb_ctx *ctx, size_t bytes, hb_buf **out)
{
    vk_validation_status(ctx); /* drop anything stale: this call reports its own errors */
    *out = NULL;
    hb_buf *b = calloc(1, sizeof *b);
    if (!b)
        return vk_fail(ctx, HB_ERROR, "out of memory for a buffer handle");
    int st = vk_buffer_create(ctx, bytes, !ctx->staging, &b->buf, &b->mem, &b->map);
    if (st != HB_OK) {
        free(b);
        return st;
    }
    b->size = bytes;
    *out = b;
    return HB_OK;
}

void vk_release(hb_ctx *ctx, hb_buf *b)
{
    if (!b)
        return;
    vkDestroyBuffer(ctx->dev, b->buf, NULL);
    vkFreeMemory(ctx->dev, b->mem, NULL); /* unmaps implicitly */
    free(b);
}

static int vk_staging_reserve(hb_ctx *ctx, size_t bytes)
{
    if (ctx->staging_size >= bytes)
        return HB_OK;
    if (ctx->staging_buf) {
        vkDestroyBuffer(ctx->dev, ctx->staging_buf, NULL);
        vkFreeMemory(ctx->dev, ctx->staging_mem, NULL);
        ctx->staging_buf = VK_NULL_HANDLE;
        ctx->staging_mem = VK_NULL_HANDLE;
        ctx->staging_size = 0;
    }
    int st = vk_buffer_create(ctx, bytes, 1, &ctx->staging_buf, &ctx->staging_mem, &ctx->staging_map);
    if (st == HB_OK)
        ctx->staging_size = bytes;
    return st;
}

int vk_cmd_begin(hb_ctx *ctx)
{
    int st = vk_check(ctx, vkResetCommandBuffer(ctx->cmd, 0), "vkResetCommandBuffer");
    if (st != HB_OK)
        return st;
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    st = vk_check(ctx, vkBeginCommandBuffer(ctx->cmd, &bi), "vkBeginCommandBuffer");
    if (st != HB_OK)
        return st;
    /* Submissions carry no memory dependency on each other: order this one after every
     * earlier write (an upload's copy, the previous launch). */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
    };
    vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         NULL, 0, NULL);
    if (ctx->timestamps)
        vkCmdResetQueryPool(ctx->cmd, ctx->timestamps, 0, 2);
    return HB_OK;
}

void vk_stamp(hb_ctx *ctx, int which)
{
    if (ctx->timestamps)
        vkCmdWriteTimestamp(ctx->cmd, which ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                            ctx->timestamps, (uint32_t)which);
}

static double vk_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int vk_cmd_end_submit(hb_ctx *ctx, double *ms, const char *what)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL,
                         0, NULL);
    int st = vk_check(ctx, vkEndCommandBuffer(ctx->cmd), "vkEndCommandBuffer");
    if (st == HB_OK)
        st = vk_check(ctx, vkResetFences(ctx->dev, 1, &ctx->fence), "vkResetFences");
    if (st != HB_OK)
        return st;
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &ctx->cmd,
    };
    double t0 = vk_now_ms();
    VkResult r = vkQueueSubmit(ctx->queue, 1, &si, ctx->fence);
    if (r != VK_SUCCESS)
        return vk_fail(ctx, HB_ERROR, "vkQueueSubmit (%s): %s", what, vk_result_str(r));
    r = vkWaitForFences(ctx->dev, 1, &ctx->fence, VK_TRUE, VK_FENCE_TIMEOUT_NS);
    double t1 = vk_now_ms();
    if (r == VK_TIMEOUT)
        return vk_fail(ctx, HB_ERROR, "vkWaitForFences (%s): not finished after %llu s", what,
                       VK_FENCE_TIMEOUT_NS / 1000000000ull);
    if (r != VK_SUCCESS)
        return vk_fail(ctx, HB_ERROR, "vkWaitForFences (%s): %s", what, vk_result_str(r));
    if (ms) {
        *ms = t1 - t0;
        if (ctx->timestamps) {
            uint64_t t[2];
            r = vkGetQueryPoolResults(ctx->dev, ctx->timestamps, 0, 2, sizeof t, t, sizeof t[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
            if (r != VK_SUCCESS)
                return vk_fail(ctx, HB_ERROR, "vkGetQueryPoolResults (%s): %s", what, vk_result_str(r));
            *ms = (double)((t[1] - t[0]) & ctx->tick_mask) * ctx->ns_per_tick / 1e6;
        }
    }
    return vk_validation_status(ctx);
}

static int vk_range_ok(hb_ctx *ctx, const hb_buf *b, size_t off, size_t bytes, const char *what)
{
    return hbc_range_ok(b->size, off, bytes, what, ctx->err, sizeof ctx->err) ? HB_OK : HB_ERROR;
}

/* One staged transfer between a kernel buffer and the staging buffer. */
static int vk_staged_copy(hb_ctx *ctx, hb_buf *b, size_t off, size_t bytes, int to_device)
{
    int st = vk_cmd_begin(ctx);
    if (st != HB_OK)
        return st;
    VkBufferCopy region = {
        .srcOffset = to_device ? 0 : off,
        .dstOffset = to_device ? off : 0,
        .size = bytes,
    };
    if (to_device)
        vkCmdCopyBuffer(ctx->cmd, ctx->staging_buf, b->buf, 1, &region);
    else
        vkCmdCopyBuffer(ctx->cmd, b->buf, ctx->staging_buf, 1, &region);
    return vk_cmd_end_submit(ctx, NULL, to_device ? "upload" : "download");
}

int vk_upload(hb_ctx *ctx, hb_buf *dst, size_t off, const void *src, size_t bytes)
{
    vk_validation_status(ctx);
    int st = vk_range_ok(ctx, dst, off, bytes, "upload");
    if (st != HB_OK || bytes == 0)
        return st;
    if (!ctx->staging) {
        memcpy((char *)dst->map + off, src, bytes); /* coherent: no flush needed */
        return HB_OK;
    }
    st = vk_staging_reserve(ctx, bytes);
    if (st != HB_OK)
        return st;
    memcpy(ctx->staging_map, src, bytes);
    return vk_staged_copy(ctx, dst, off, bytes, 1);
}

int vk_download(hb_ctx *ctx, hb_buf *src, size_t off, void *dst, size_t bytes)
{
    vk_validation_status(ctx);
    int st = vk_range_ok(ctx, src, off, bytes, "download");
    if (st != HB_OK || bytes == 0)
        return st;
    if (!ctx->staging) {
        memcpy(dst, (const char *)src->map + off, bytes);
        return HB_OK;
    }
    st = vk_staging_reserve(ctx, bytes);
    if (st == HB_OK)
        st = vk_staged_copy(ctx, src, off, bytes, 0);
    if (st == HB_OK)
        memcpy(dst, ctx->staging_map, bytes);
    return st;
}

int vk_copy(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes, double *device_ms)
{
    vk_validation_status(ctx);
    if (device_ms)
        *device_ms = 0.0;
    int st = vk_range_ok(ctx, dst, dst_off, bytes, "copy destination");
    if (st == HB_OK)
        st = vk_range_ok(ctx, src, src_off, bytes, "copy source");
    if (st == HB_OK && src == dst && src_off < dst_off + bytes && dst_off < src_off + bytes)
        st = vk_fail(ctx, HB_ERROR, "copy: overlapping ranges in one buffer");
    if (st != HB_OK || bytes == 0)
        return st;
    st = vk_cmd_begin(ctx);
    if (st != HB_OK)
        return st;
    VkBufferCopy region = {.srcOffset = src_off, .dstOffset = dst_off, .size = bytes};
    vk_stamp(ctx, 0);
    vkCmdCopyBuffer(ctx->cmd, src->buf, dst->buf, 1, &region);
    vk_stamp(ctx, 1);
    return vk_cmd_end_submit(ctx, device_ms, "copy");
}

/* A batch's places in the staging buffer, each transfer 16-byte aligned; their total. */
static size_t vk_batch_places(const struct hb_transfer *t, int n, size_t *at)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        at[i] = total;
        total += (t[i].bytes + 15) & ~(size_t)15;
    }
    return total;
}

/* Every copy of a batch in one submission. Uploads are ordered as separate calls would be
 * (two may write one range); downloads only read the kernel buffers. */
static int vk_staged_batch(hb_ctx *ctx, const struct hb_transfer *t, int n, const size_t *at, int to_device)
{
    int st = vk_cmd_begin(ctx);
    if (st != HB_OK)
        return st;
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
    };
    for (int i = 0; i < n; i++) {
        if (!t[i].bytes)
            continue;
        VkBufferCopy region = {to_device ? at[i] : t[i].offset, to_device ? t[i].offset : at[i], t[i].bytes};
        if (to_device && i)
            vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                                 NULL, 0, NULL);
        if (to_device)
            vkCmdCopyBuffer(ctx->cmd, ctx->staging_buf, t[i].buf->buf, 1, &region);
        else
            vkCmdCopyBuffer(ctx->cmd, t[i].buf->buf, ctx->staging_buf, 1, &region);
    }
    return vk_cmd_end_submit(ctx, NULL, to_device ? "upload" : "download");
}

/* A batch through the staging buffer, or one call per transfer when it is too long to place. */
static int vk_transfer_many(hb_ctx *ctx, const struct hb_transfer *t, int n, int to_device)
{
    vk_validation_status(ctx);
    size_t at[VK_BATCH_MAX];
    for (int i = 0; i < n; i++)
        if (vk_range_ok(ctx, t[i].buf, t[i].offset, t[i].bytes, to_device ? "upload" : "download") != HB_OK)
            return HB_ERROR;
    if (!ctx->staging || n > VK_BATCH_MAX) {
        for (int i = 0, st; i < n; i++)
            if ((st = to_device ? vk_upload(ctx, t[i].buf, t[i].offset, t[i].host, t[i].bytes)
                                : vk_download(ctx, t[i].buf, t[i].offset, t[i].host, t[i].bytes)) != HB_OK)
                return st;
        return HB_OK;
    }
    int st = vk_staging_reserve(ctx, vk_batch_places(t, n, at));
    for (int i = 0; st == HB_OK && to_device && i < n; i++)
        memcpy((char *)ctx->staging_map + at[i], t[i].host, t[i].bytes);
    if (st == HB_OK)
        st = vk_staged_batch(ctx, t, n, at, to_device);
    for (int i = 0; st == HB_OK && !to_device && i < n; i++)
        memcpy(t[i].host, (const char *)ctx->staging_map + at[i], t[i].bytes);
    return st;
}

int vk_upload_many(hb_ctx *ctx, const struct hb_transfer *t, int n) { return vk_transfer_many(ctx, t, n, 1); }

int vk_download_many(hb_ctx *ctx, const struct hb_transfer *t, int n) { return vk_transfer_many(ctx, t, n, 0); }
