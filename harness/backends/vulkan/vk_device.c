/* SPDX-License-Identifier: MIT */
/* vk_device.c: the Vulkan instance (with the validation layer when asked for), the devices
 * with a compute queue, and what each offers: properties, subgroup size control and the
 * widths the harness runs at (lavapipe: LP_NATIVE_VECTOR_WIDTH). Opens no device. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtc.h"
#include "vk_internal.h"

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

/* Mesa's on-disk shader cache (22.3 at least) is not keyed by LP_NATIVE_VECTOR_WIDTH: in one
 * folder, lavapipe replayed code compiled at width 4 in a width-8 process, so every width ran
 * as 4. A process whose lavapipe width is pinned caches in a folder of that width's own, in
 * the harness's per-user cache (rtc.h: ours alone); any other process, or one with no such
 * folder, runs uncached. Uncached, every run compiled its shaders again (sgemm_optimized:
 * about 3 s a width). A cache the user disabled stays disabled. Set before the driver loads;
 * only Mesa drivers read these. */
static void vk_shader_cache_setup(void)
{
    if (getenv("MESA_SHADER_CACHE_DISABLE"))
        return;
    const char *width = getenv("LP_NATIVE_VECTOR_WIDTH");
    char sub[64], dir[PATH_MAX], err[512];
    struct hb_kernel_spec no_build_dir = {0};
    if (width && *width && strspn(width, "0123456789") == strlen(width) && strlen(width) <= 8 &&
        snprintf(sub, sizeof sub, "lavapipe-%s", width) > 0 &&
        rtc_cache_dir(&no_build_dir, sub, dir, sizeof dir, err, sizeof err) == 0) {
        setenv("MESA_SHADER_CACHE_DIR", dir, 1);
        setenv("MESA_SHADER_CACHE_MAX_SIZE", "128M", 0); /* not Mesa's 1G a width: ours fill ~1M */
        return;
    }
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
}

/* Creates the instance, with the validation layer and a messenger writing into vs when
 * HB_VK_VALIDATION=1. Returns an hb_status; no ICD at all is HB_NO_DEVICE. */
int vk_instance_create(VkInstance *inst, VkDebugUtilsMessengerEXT *messenger, struct vk_vstate *vs, char *err,
                       size_t errlen)
{
    const char *env = getenv("HB_VK_VALIDATION");
    int validate = env && strcmp(env, "1") == 0;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validate && !vk_layer_present(layer)) {
        snprintf(err, errlen, "HB_VK_VALIDATION=1 but %s is not installed", layer);
        return HB_ERROR;
    }
    vk_shader_cache_setup();
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
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
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
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(*inst, "vkCreateDebugUtilsMessengerEXT");
        r = create ? create(*inst, &mci, NULL, messenger) : VK_ERROR_EXTENSION_NOT_PRESENT;
        if (r != VK_SUCCESS) {
            snprintf(err, errlen, "vkCreateDebugUtilsMessengerEXT: %s", vk_result_str(r));
            vkDestroyInstance(*inst, NULL);
            return HB_ERROR;
        }
    }
    return HB_OK;
}

void vk_instance_destroy(VkInstance inst, VkDebugUtilsMessengerEXT messenger)
{
    if (messenger != VK_NULL_HANDLE) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy)
            destroy(inst, messenger, NULL);
    }
    vkDestroyInstance(inst, NULL);
}

/* Returns the index of a queue family with compute (preferring one with timestamps), or -1. */
int vk_compute_family(VkPhysicalDevice phys)
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
int vk_compute_devices(VkInstance inst, VkPhysicalDevice *out, int max, char *err, size_t errlen)
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

void vk_inspect(VkPhysicalDevice phys, struct vk_devinfo *di)
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
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f};
        vkGetPhysicalDeviceFeatures2(phys, &f2);
        di->size_control = f.subgroupSizeControl && (di->ssc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
        di->full_subgroups = f.computeFullSubgroups;
    }
}

int vk_is_lavapipe(const struct vk_devinfo *di)
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

int vk_widths(const struct vk_devinfo *di, struct hb_width_option *w)
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

void vk_describe(VkPhysicalDevice phys, const struct vk_devinfo *di, struct hb_device_info *out)
{
    memset(out, 0, sizeof *out);
    /* Precisions bound the copies into the fixed-size fields; real names are shorter. */
    snprintf(out->name, sizeof out->name, "%.127s", di->props.deviceName);
    uint32_t v = di->props.apiVersion;
    snprintf(out->driver, sizeof out->driver, "%.40s %.60s, Vulkan %u.%u.%u",
             di->drv.driverName[0] ? di->drv.driverName : "driver",
             di->drv.driverInfo[0] ? di->drv.driverInfo : "(no driver info)", VK_API_VERSION_MAJOR(v),
             VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    out->n_widths = vk_widths(di, out->widths);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(phys, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; i++)
        if ((mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mem.memoryHeaps[i].size > out->global_mem_bytes)
            out->global_mem_bytes = mem.memoryHeaps[i].size;
    out->shared_mem_per_block = di->props.limits.maxComputeSharedMemorySize;
}

int vk_check_width(hb_ctx *ctx, const struct vk_devinfo *di, int width)
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
        if (width <= 0 || (w & (w - 1)) || w < di->ssc.minSubgroupSize || w > di->ssc.maxSubgroupSize)
            return vk_fail(ctx, HB_UNSUPPORTED, "subgroup size control offers widths %u..%u (powers of two), not %d",
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
