/* SPDX-License-Identifier: MIT */
/* vk_error.c: the Vulkan backend's error text: VkResult names, the context's message, and
 * the validation layer's first error. The bottom of the backend: it calls no other file. */
#include <stdio.h>

#include "vk_internal.h"

int vk_fail(hb_ctx *ctx, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return status;
}

const char *vk_result_str(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult (unnamed)";
    }
}

int vk_validation_status(hb_ctx *ctx)
{
    if (!ctx->vstate.failed)
        return HB_OK;
    ctx->vstate.failed = 0;
    return vk_fail(ctx, HB_ERROR, "validation layer: %s", ctx->vstate.msg);
}

int vk_check(hb_ctx *ctx, VkResult r, const char *call)
{
    if (r != VK_SUCCESS)
        return vk_fail(ctx, HB_ERROR, "%s: %s (%d)", call, vk_result_str(r), (int)r);
    return vk_validation_status(ctx);
}

VKAPI_ATTR VkBool32 VKAPI_CALL vk_on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                             VkDebugUtilsMessageTypeFlagsEXT types,
                                             const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    struct vk_vstate *vs = user;
    (void)types;
    /* Keep the first error: later ones are usually its consequences. */
    if ((sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) && !vs->failed) {
        vs->failed = 1;
        snprintf(vs->msg, sizeof vs->msg, "%s", data->pMessage ? data->pMessage : "(no text)");
    }
    return VK_FALSE;
}
