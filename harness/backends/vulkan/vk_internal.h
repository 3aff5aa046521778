/* SPDX-License-Identifier: MIT */
/* vk_internal.h: state shared by the Vulkan backend's files, which call downwards only:
 * vk_backend.c (entry, open, close) over vk_device.c (instance, devices, widths), vk_mem.c
 * (memory, transfers, submission) and vk_kernel.c (shaders, launches), all over vk_error.c.
 * Private to this folder; the core sees only backend.h. Not a general Vulkan wrapper: just
 * what one harness child needs. */
#ifndef VK_INTERNAL_H
#define VK_INTERNAL_H

#include <stdarg.h>
#include <vulkan/vulkan.h>

#include "backend.h"

/* What the validation messenger saw: the first ERROR-severity message since the last check. */
struct vk_vstate {
    int failed;
    char msg[768];
};

struct hb_ctx {
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t queue_family;
    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool timestamps; /* two queries: before and after the timed command */
    double ns_per_tick;
    uint64_t tick_mask;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    int width;
    int required_size;  /* chain VkPipelineShaderStageRequiredSubgroupSizeCreateInfo */
    int full_subgroups; /* computeFullSubgroups enabled */
    uint32_t max_subgroup;
    uint32_t buf_type;     /* memory type of kernel buffers */
    int staging;           /* kernel buffers not host-visible: go through a staging buffer */
    uint32_t staging_type; /* host-visible, coherent */
    VkBuffer staging_buf;
    VkDeviceMemory staging_mem;
    void *staging_map;
    size_t staging_size;
    struct vk_vstate vstate;
    char err[1024];
};

struct hb_buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    size_t size;
    void *map; /* NULL in staging mode */
};

struct vk_devinfo {
    VkPhysicalDeviceProperties props;
    uint32_t api;                         /* min(instance, device) API version */
    VkPhysicalDeviceDriverProperties drv; /* zeroed below Vulkan 1.2 */
    VkPhysicalDeviceSubgroupProperties sg;
    VkPhysicalDeviceSubgroupSizeControlProperties ssc; /* zeroed without size control */
    int size_control_ext;                              /* needs VK_EXT_subgroup_size_control (Vulkan 1.1/1.2) */
    int size_control;                                  /* feature subgroupSizeControl, for compute */
    int full_subgroups;                                /* feature computeFullSubgroups */
};

/* vk_device.c: instance, devices, inspection, widths. */
int vk_instance_create(VkInstance *inst, VkDebugUtilsMessengerEXT *messenger, struct vk_vstate *vstate, char *err,
                       size_t errlen);
void vk_instance_destroy(VkInstance inst, VkDebugUtilsMessengerEXT messenger);
int vk_compute_devices(VkInstance inst, VkPhysicalDevice *out, int max, char *err, size_t errlen);
void vk_inspect(VkPhysicalDevice phys, struct vk_devinfo *di);
int vk_is_lavapipe(const struct vk_devinfo *di);
int vk_widths(const struct vk_devinfo *di, struct hb_width_option *w);
void vk_describe(VkPhysicalDevice phys, const struct vk_devinfo *di, struct hb_device_info *out);
/* The queue family with compute, or -1. */
int vk_compute_family(VkPhysicalDevice phys);
/* HB_OK when the device runs kernels at `width` in this process (its environment set),
 * HB_UNSUPPORTED with the reason otherwise. */
int vk_check_width(hb_ctx *ctx, const struct vk_devinfo *di, int width);

/* vk_error.c. The validation messenger's callback keeps the first error in its vk_vstate. */
VKAPI_ATTR VkBool32 VKAPI_CALL vk_on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                             VkDebugUtilsMessageTypeFlagsEXT types,
                                             const VkDebugUtilsMessengerCallbackDataEXT *data, void *user);
/* Formats a message into ctx->err; returns `status` so callers can `return vk_fail(...)`. */
int vk_fail(hb_ctx *ctx, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *vk_result_str(VkResult r);
/* HB_ERROR naming `call` when r is not VK_SUCCESS (or a pending validation error), else HB_OK. */
int vk_check(hb_ctx *ctx, VkResult r, const char *call);
/* Returns HB_ERROR with the validation message when the layer reported an error since the
 * last call, and clears the flag; HB_OK otherwise. */
int vk_validation_status(hb_ctx *ctx);

/* vk_poison.c: rewrites the SPIR-V module *words (*bytes long) so that the compute entry point
 * named entry fills every Workgroup variable with the poison, in each workgroup, before its
 * own code runs. Returns how many it fills (0: the module is left as it was, its buffer
 * kept); *left is how many it cannot (one holding a struct with an array sized by a
 * specialization constant, say). */
int vk_poison_workgroup(uint32_t **words, size_t *bytes, const char *entry, int *left);

/* Command recording around one submission: begin resets the command buffer and orders it
 * after every earlier submission; end_submit makes writes visible to the host, submits,
 * waits on the fence and, when ms is not NULL, reads the timestamps written by
 * vk_stamp(ctx, 0) / vk_stamp(ctx, 1). */
int vk_cmd_begin(hb_ctx *ctx);
void vk_stamp(hb_ctx *ctx, int which);
int vk_cmd_end_submit(hb_ctx *ctx, double *ms, const char *what);

/* Sets ctx->staging from the device's heaps (vk_mem.c). */
void vk_choose_memory(hb_ctx *ctx);

/* The memory half of struct hb_backend (vk_mem.c). */
int vk_alloc(hb_ctx *ctx, size_t bytes, hb_buf **out);
void vk_release(hb_ctx *ctx, hb_buf *buf);
int vk_upload(hb_ctx *ctx, hb_buf *dst, size_t offset, const void *src, size_t bytes);
int vk_download(hb_ctx *ctx, hb_buf *src, size_t offset, void *dst, size_t bytes);
/* A batch in one submission: a transfer through the staging buffer costs a submit and a wait. */
#define VK_BATCH_MAX 32
int vk_upload_many(hb_ctx *ctx, const struct hb_transfer *t, int n);
int vk_download_many(hb_ctx *ctx, const struct hb_transfer *t, int n);
int vk_copy(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes, double *device_ms);

/* The kernel half of struct hb_backend (vk_kernel.c). */
int vk_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out);
void vk_unload(hb_ctx *ctx, hb_kern *kern);
int vk_launch(hb_ctx *ctx, hb_kern *kern, const unsigned grid[3], const struct hb_args *args, double *device_ms);
const char *vk_kernel_origin(hb_ctx *ctx, hb_kern *kern);

#endif
