/* SPDX-License-Identifier: MIT */
/* vk_backend.c: the Vulkan backend's entry and context: device listing, open and close
 * (instance and device inspection in vk_device.c, memory in vk_mem.c, shaders and launches
 * in vk_kernel.c, error text in vk_error.c). It does not pick a device
 * on its own, enable robustness features (out-of-bounds writes must land in the core's guard
 * bands) or keep anything alive between child processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

#define VK_MAX_DEVICES 16

static int vk_list_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    struct vk_vstate vs = {0};
    int st = vk_instance_create(&inst, &messenger, &vs, err, errlen);
    if (st == HB_NO_DEVICE)
        return 0;
    if (st != HB_OK)
        return -1;
    VkPhysicalDevice devs[VK_MAX_DEVICES];
    int n = vk_compute_devices(inst, devs, VK_MAX_DEVICES, err, errlen);
    for (int i = 0; i < n && i < max; i++) {
        struct vk_devinfo di;
        vk_inspect(devs[i], &di);
        vk_describe(devs[i], &di, &out[i]);
    }
    vk_instance_destroy(inst, messenger);
    if (vs.failed) {
        snprintf(err, errlen, "validation layer: %s", vs.msg);
        return -1;
    }
    return n < max ? n : max;
}

/* Creates the logical device and its queue with the subgroup-size-control and full-subgroups
 * features the device offers (the width itself is chosen per pipeline, vk_kernel.c). */
static int vk_create_device(hb_ctx *ctx, const struct vk_devinfo *di)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = ctx->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkPhysicalDeviceSubgroupSizeControlFeatures ssc = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
        .subgroupSizeControl = di->size_control ? VK_TRUE : VK_FALSE,
        .computeFullSubgroups = di->full_subgroups ? VK_TRUE : VK_FALSE,
    };
    const char *ext = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
    int chain = di->size_control || di->full_subgroups;
    /* 64-bit integers where the device has them: a kernel may take a size_t-like `n:u64`. */
    VkPhysicalDeviceFeatures have, want = {0};
    vkGetPhysicalDeviceFeatures(ctx->phys, &have);
    want.shaderInt64 = have.shaderInt64;
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = chain ? &ssc : NULL,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = chain && di->size_control_ext ? 1 : 0,
        .ppEnabledExtensionNames = &ext,
        .pEnabledFeatures = &want,
    };
    int st = vk_check(ctx, vkCreateDevice(ctx->phys, &dci, NULL, &ctx->dev), "vkCreateDevice");
    if (st != HB_OK)
        return st;
    ctx->full_subgroups = di->full_subgroups;
    vkGetDeviceQueue(ctx->dev, ctx->queue_family, 0, &ctx->queue);

    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = ctx->queue_family,
    };
    st = vk_check(ctx, vkCreateCommandPool(ctx->dev, &pci, NULL, &ctx->cmd_pool), "vkCreateCommandPool");
    if (st != HB_OK)
        return st;
    VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = ctx->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    st = vk_check(ctx, vkAllocateCommandBuffers(ctx->dev, &cai, &ctx->cmd), "vkAllocateCommandBuffers");
    if (st != HB_OK)
        return st;
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    st = vk_check(ctx, vkCreateFence(ctx->dev, &fci, NULL, &ctx->fence), "vkCreateFence");
    if (st != HB_OK)
        return st;

    uint32_t nfam = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(ctx->phys, &nfam, NULL);
    VkQueueFamilyProperties fam[32];
    if (nfam > 32)
        nfam = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(ctx->phys, &nfam, fam);
    uint32_t bits = fam[ctx->queue_family].timestampValidBits;
    if (bits == 0)
        return HB_OK; /* launches fall back to host wall clock */
    ctx->tick_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    ctx->ns_per_tick = ctx->props.limits.timestampPeriod;
    VkQueryPoolCreateInfo qpci = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = 2,
    };
    return vk_check(ctx, vkCreateQueryPool(ctx->dev, &qpci, NULL, &ctx->timestamps), "vkCreateQueryPool");
}

static void vk_close(hb_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->dev) {
        vkDeviceWaitIdle(ctx->dev);
        if (ctx->staging_buf)
            vkDestroyBuffer(ctx->dev, ctx->staging_buf, NULL);
        if (ctx->staging_mem)
            vkFreeMemory(ctx->dev, ctx->staging_mem, NULL);
        if (ctx->timestamps)
            vkDestroyQueryPool(ctx->dev, ctx->timestamps, NULL);
        if (ctx->fence)
            vkDestroyFence(ctx->dev, ctx->fence, NULL);
        if (ctx->cmd_pool)
            vkDestroyCommandPool(ctx->dev, ctx->cmd_pool, NULL);
        vkDestroyDevice(ctx->dev, NULL);
    }
    if (ctx->inst)
        vk_instance_destroy(ctx->inst, ctx->messenger);
    free(ctx);
}

static int vk_open(hb_ctx **out, int device, int width, char *err, size_t errlen)
{
    *out = NULL;
    hb_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(err, errlen, "out of memory");
        return HB_ERROR;
    }
    int st = vk_instance_create(&ctx->inst, &ctx->messenger, &ctx->vstate, err, errlen);
    if (st != HB_OK) {
        free(ctx);
        return st;
    }
    VkPhysicalDevice devs[VK_MAX_DEVICES];
    int n = vk_compute_devices(ctx->inst, devs, VK_MAX_DEVICES, ctx->err, sizeof ctx->err);
    if (n < 0)
        st = HB_ERROR;
    else if (device < 0 || device >= n)
        st =
            vk_fail(ctx, n ? HB_ERROR : HB_NO_DEVICE, "Vulkan device %d requested, %d with compute present", device, n);
    if (st == HB_OK) {
        struct vk_devinfo di;
        ctx->phys = devs[device];
        vk_inspect(ctx->phys, &di);
        ctx->props = di.props;
        ctx->max_subgroup = di.size_control ? di.ssc.maxSubgroupSize : di.sg.subgroupSize;
        vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);
        ctx->queue_family = (uint32_t)vk_compute_family(ctx->phys);
        ctx->width = width;
        st = vk_check_width(ctx, &di, width);
        if (st == HB_OK)
            st = vk_create_device(ctx, &di);
        if (st == HB_OK)
            vk_choose_memory(ctx);
    }
    if (st == HB_OK)
        st = vk_validation_status(ctx);
    if (st != HB_OK) {
        snprintf(err, errlen, "%s", ctx->err);
        vk_close(ctx);
        return st;
    }
    *out = ctx;
    return HB_OK;
}

static const char *vk_last_error(hb_ctx *ctx) { return ctx ? ctx->err : "no Vulkan context"; }

const struct hb_backend *hb_backend_entry(void)
{
    static const struct hb_backend be = {
        .abi = HB_BACKEND_ABI,
        .name = "vulkan",
        .langs = "glsl spirv",
        .list_devices = vk_list_devices,
        .open = vk_open,
        .close = vk_close,
        .last_error = vk_last_error,
        .alloc = vk_alloc,
        .release = vk_release,
        .upload = vk_upload,
        .download = vk_download,
        .load = vk_load,
        .unload = vk_unload,
        .launch = vk_launch,
        .vendor_sgemm = NULL,
        .vendor_name = NULL,
        .copy = vk_copy,
        .kernel_origin = vk_kernel_origin,
        .upload_many = vk_upload_many,
        .download_many = vk_download_many,
    };
    return &be;
}
