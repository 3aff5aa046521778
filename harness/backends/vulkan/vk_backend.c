/* vk_backend.c: the Vulkan backend's instance, validation, devices, widths and context
 * (memory in vk_mem.c, shaders and launches in vk_kernel.c). Widths: subgroup size control's
 * range, LP_NATIVE_VECTOR_WIDTH on lavapipe, else the fixed size. It does not pick a device
 * on its own, enable robustness features (out-of-bounds writes must land in the core's guard
 * bands) or keep anything alive between child processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static VKAPI_ATTR VkBool32 VKAPI_CALL
vk_on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev, VkDebugUtilsMessageTypeFlagsEXT types,
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

static int vk_layer_present(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return 0;
    VkLayerProperties *layers = calloc(n, sizeof *layers);
    int found = 0;
    if (layers && vkEnumerateInstanceLayerProperties(&n, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

/* Creates the instance, with the validation layer and a messenger writing into vs when
 * HB_VK_VALIDATION=1. Returns an hb_status; no ICD at all is HB_NO_DEVICE. */
static int vk_instance_create(VkInstance *inst, VkDebugUtilsMessengerEXT *messenger,
                              struct vk_vstate *vs, char *err, size_t errlen)
{
    const char *env = getenv("HB_VK_VALIDATION");
    int validate = env && strcmp(env, "1") == 0;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validate && !vk_layer_present(layer)) {
        snprintf(err, errlen, "HB_VK_VALIDATION=1 but %s is not installed", layer);
        return HB_ERROR;
    }
    /* Mesa's on-disk shader cache (22.3 at least) is not keyed by LP_NATIVE_VECTOR_WIDTH:
     * lavapipe replayed code compiled at width 4 in a width-8 process, so every width ran as
     * 4. Set before the driver loads; only Mesa drivers read it, at a small compile cost. */
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
    uint32_t loader = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loader) != VK_SUCCESS)
        loader = VK_API_VERSION_1_0;
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "harness",
        .apiVersion = loader < VK_API_VERSION_1_3 ? loader : VK_API_VERSION_1_3,
    };
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = vk_on_message,
        .pUserData = vs,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validate ? &mci : NULL, /* also catches messages from instance creation */
        .pApplicationInfo = &app,
        .enabledLayerCount = validate ? 1 : 0,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = validate ? 1 : 0,
        .ppEnabledExtensionNames = &ext,
    };
    VkResult r = vkCreateInstance(&ici, NULL, inst);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
        snprintf(err, errlen, "vkCreateInstance: no Vulkan driver (VK_ERROR_INCOMPATIBLE_DRIVER)");
        return HB_NO_DEVICE;
    }
    if (r != VK_SUCCESS) {
        snprintf(err, errlen, "vkCreateInstance: %s (%d)", vk_result_str(r), (int)r);
        return HB_ERROR;
    }
    *messenger = VK_NULL_HANDLE;
    if (validate) {
        PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(*inst, "vkCreateDebugUtilsMessengerEXT");
        r = create ? create(*inst, &mci, NULL, messenger) : VK_ERROR_EXTENSION_NOT_PRESENT;
        if (r != VK_SUCCESS) {
            snprintf(err, errlen, "vkCreateDebugUtilsMessengerEXT: %s", vk_result_str(r));
            vkDestroyInstance(*inst, NULL);
            return HB_ERROR;
        }
    }
    return HB_OK;
}

static void vk_instance_destroy(VkInstance inst, VkDebugUtilsMessengerEXT messenger)
{
    if (messenger != VK_NULL_HANDLE) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy)
            destroy(inst, messenger, NULL);
    }
    vkDestroyInstance(inst, NULL);
}

/* Returns the index of a queue family with compute (preferring one with timestamps), or -1. */
static int vk_compute_family(VkPhysicalDevice phys)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
    VkQueueFamilyProperties *fam = calloc(n ? n : 1, sizeof *fam);
    if (!fam)
        return -1;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, fam);
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            continue;
        if (best < 0 || (fam[best].timestampValidBits == 0 && fam[i].timestampValidBits > 0))
            best = (int)i;
    }
    free(fam);
    return best;
}

/* Physical devices with a compute queue, in enumeration order: list_devices and open agree
 * on indices because both go through here. Returns the count or -1 (message in err). */
static int vk_compute_devices(VkInstance inst, VkPhysicalDevice *out, int max, char *err,
                              size_t errlen)
{
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
    if (r != VK_SUCCESS) {
        snprintf(err, errlen, "vkEnumeratePhysicalDevices: %s", vk_result_str(r));
        return -1;
    }
    VkPhysicalDevice *all = calloc(n ? n : 1, sizeof *all);
    if (!all) {
        snprintf(err, errlen, "out of memory listing %u devices", n);
        return -1;
    }
    r = vkEnumeratePhysicalDevices(inst, &n, all);
    int count = 0;
    for (uint32_t i = 0; r >= 0 && i < n && count < max; i++)
        if (vk_compute_family(all[i]) >= 0)
            out[count++] = all[i];
    free(all);
    if (r < 0) {
        snprintf(err, errlen, "vkEnumeratePhysicalDevices: %s", vk_result_str(r));
        return -1;
    }
    return count;
}

/* What one physical device says about subgroups, drivers and size control. */
struct vk_devinfo {
    VkPhysicalDeviceProperties props;
    uint32_t api;                 /* min(instance, device) API version */
    VkPhysicalDeviceDriverProperties drv;       /* zeroed below Vulkan 1.2 */
    VkPhysicalDeviceSubgroupProperties sg;
    VkPhysicalDeviceSubgroupSizeControlProperties ssc; /* zeroed without size control */
    int size_control_ext;         /* needs VK_EXT_subgroup_size_control (Vulkan 1.1/1.2) */
    int size_control;             /* feature subgroupSizeControl, for compute */
    int full_subgroups;           /* feature computeFullSubgroups */
};

static int vk_has_extension(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS)
        return 0;
    VkExtensionProperties *ext = calloc(n ? n : 1, sizeof *ext);
    int found = 0;
    if (ext && vkEnumerateDeviceExtensionProperties(phys, NULL, &n, ext) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(ext[i].extensionName, name) == 0;
    free(ext);
    return found;
}

static void vk_inspect(VkPhysicalDevice phys, struct vk_devinfo *di)
{
    memset(di, 0, sizeof *di);
    vkGetPhysicalDeviceProperties(phys, &di->props);
    uint32_t inst_api = VK_API_VERSION_1_0;
    vkEnumerateInstanceVersion(&inst_api);
    if (inst_api > VK_API_VERSION_1_3)
        inst_api = VK_API_VERSION_1_3;
    di->api = di->props.apiVersion < inst_api ? di->props.apiVersion : inst_api;
    if (di->api < VK_API_VERSION_1_1)
        return; /* no subgroups to speak of: the fixed size stays 0 and nothing is offered */
    int has_ssc = di->api >= VK_API_VERSION_1_3;
    if (!has_ssc && vk_has_extension(phys, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME))
        has_ssc = di->size_control_ext = 1;

    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    di->sg.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    p2.pNext = &di->sg;
    void **tail = &di->sg.pNext;
    if (di->api >= VK_API_VERSION_1_2) {
        di->drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        *tail = &di->drv;
        tail = &di->drv.pNext;
    }
    if (has_ssc) {
        di->ssc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
        *tail = &di->ssc;
    }
    vkGetPhysicalDeviceProperties2(phys, &p2);

    if (has_ssc) {
        VkPhysicalDeviceSubgroupSizeControlFeatures f = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                        .pNext = &f};
        vkGetPhysicalDeviceFeatures2(phys, &f2);
        di->size_control = f.subgroupSizeControl &&
                           (di->ssc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
        di->full_subgroups = f.computeFullSubgroups;
    }
}

static int vk_is_lavapipe(const struct vk_devinfo *di)
{
    return di->api >= VK_API_VERSION_1_2 && di->drv.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
}

/* lavapipe's subgroup size is its SIMD width, fixed when the driver loads: 128 bits -> 4.
 * Above 512 bits it reports 32 or 64 lanes but executes 16, so those are never offered. */
static const struct {
    int width;
    const char *env;
} vk_lavapipe_widths[] = {
    {4, "LP_NATIVE_VECTOR_WIDTH=128"},
    {8, "LP_NATIVE_VECTOR_WIDTH=256"},
    {16, "LP_NATIVE_VECTOR_WIDTH=512"},
};

static int vk_widths(const struct vk_devinfo *di, struct hb_width_option *w)
{
    int n = 0;
    memset(w, 0, HB_MAX_WIDTHS * sizeof *w);
    if (vk_is_lavapipe(di)) {
        for (size_t i = 0; i < sizeof vk_lavapipe_widths / sizeof vk_lavapipe_widths[0]; i++) {
            w[n].width = vk_lavapipe_widths[i].width;
            snprintf(w[n].env, sizeof w[n].env, "%s", vk_lavapipe_widths[i].env);
            n++;
        }
    } else if (di->size_control && di->ssc.minSubgroupSize > 0) {
        uint32_t lo = di->ssc.minSubgroupSize, hi = di->ssc.maxSubgroupSize;
        for (uint32_t s = lo; s <= hi && n < HB_MAX_WIDTHS; s *= 2)
            w[n++].width = (int)s;
    } else if (di->sg.subgroupSize > 0) {
        w[n++].width = (int)di->sg.subgroupSize;
    }
    return n;
}

static void vk_describe(VkPhysicalDevice phys, const struct vk_devinfo *di,
                        struct hb_device_info *out)
{
    memset(out, 0, sizeof *out);
    /* Precisions bound the copies into the fixed-size fields; real names are shorter. */
    snprintf(out->name, sizeof out->name, "%.127s", di->props.deviceName);
    uint32_t v = di->props.apiVersion;
    snprintf(out->driver, sizeof out->driver, "%.40s %.60s, Vulkan %u.%u.%u",
             di->drv.driverName[0] ? di->drv.driverName : "driver",
             di->drv.driverInfo[0] ? di->drv.driverInfo : "(no driver info)",
             VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    out->n_widths = vk_widths(di, out->widths);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(phys, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; i++)
        if ((mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mem.memoryHeaps[i].size > out->global_mem_bytes)
            out->global_mem_bytes = mem.memoryHeaps[i].size;
    out->shared_mem_per_block = di->props.limits.maxComputeSharedMemorySize;
}

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

/* Says whether this process's device runs `width`, and how pipelines must ask for it. */
static int vk_check_width(hb_ctx *ctx, const struct vk_devinfo *di, int width)
{
    if (vk_is_lavapipe(di)) {
        const char *need = NULL;
        for (size_t i = 0; i < sizeof vk_lavapipe_widths / sizeof vk_lavapipe_widths[0]; i++)
            if (vk_lavapipe_widths[i].width == width)
                need = vk_lavapipe_widths[i].env;
        if (!need)
            return vk_fail(ctx, HB_UNSUPPORTED,
                           "lavapipe executes at most 16 lanes (wider settings report 32 or 64 "
                           "but run 16): width %d is not offered",
                           width);
        if ((int)di->sg.subgroupSize != width)
            return vk_fail(ctx, HB_UNSUPPORTED,
                           "lavapipe runs %u-lane subgroups in this process; width %d needs %s "
                           "set before the driver loads",
                           di->sg.subgroupSize, width, need);
        return HB_OK;
    }
    if (di->size_control && di->ssc.minSubgroupSize > 0) {
        uint32_t w = (uint32_t)width;
        if (width <= 0 || (w & (w - 1)) || w < di->ssc.minSubgroupSize ||
            w > di->ssc.maxSubgroupSize)
            return vk_fail(ctx, HB_UNSUPPORTED,
                           "subgroup size control offers widths %u..%u (powers of two), not %d",
                           di->ssc.minSubgroupSize, di->ssc.maxSubgroupSize, width);
        ctx->required_size = di->ssc.minSubgroupSize != di->ssc.maxSubgroupSize;
        return HB_OK;
    }
    if ((int)di->sg.subgroupSize != width)
        return vk_fail(ctx, HB_UNSUPPORTED,
                       "subgroup size is fixed at %u without subgroup size control; width %d "
                       "cannot be honoured",
                       di->sg.subgroupSize, width);
    return HB_OK;
}

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
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = chain ? &ssc : NULL,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = chain && di->size_control_ext ? 1 : 0,
        .ppEnabledExtensionNames = &ext,
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
    st = vk_check(ctx, vkCreateCommandPool(ctx->dev, &pci, NULL, &ctx->cmd_pool),
                  "vkCreateCommandPool");
    if (st != HB_OK)
        return st;
    VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = ctx->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    st = vk_check(ctx, vkAllocateCommandBuffers(ctx->dev, &cai, &ctx->cmd),
                  "vkAllocateCommandBuffers");
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
    return vk_check(ctx, vkCreateQueryPool(ctx->dev, &qpci, NULL, &ctx->timestamps),
                    "vkCreateQueryPool");
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
        st = vk_fail(ctx, n ? HB_ERROR : HB_NO_DEVICE,
                     "Vulkan device %d requested, %d with compute present", device, n);
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

static const char *vk_last_error(hb_ctx *ctx)
{
    return ctx ? ctx->err : "no Vulkan context";
}

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
    };
    return &be;
}
