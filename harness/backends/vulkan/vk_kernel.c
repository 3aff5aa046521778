/* SPDX-License-Identifier: MIT */
/* vk_kernel.c: loading compute shaders (prebuilt SPIR-V, GLSL compiled with glslc at run time
 * when no current build product exists, or SPIR-V given directly) and launching them.
 * The manifest's block is passed as specialization constants 0, 1, 2; buffers are bound as set
 * 0 bindings 0..n-1 and the integers and floats pushed as one block, both in the kernel's
 * declared order (else the op's ABI), per kernels/README.md. It does not reflect SPIR-V: a
 * shader that disagrees with its declared signature fails in the driver or computes garbage.
 * Each module's workgroup memory is poisoned before every workgroup (vk_poison.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtc.h"
#include "vk_internal.h"

/* Same target as backend.mk, so run-time and build-time products match. Every shader here is a
 * compute shader, so the stage is said: a `.glsl` file then builds as a `.comp` does. */
#define VK_GLSLC_TARGET "--target-env=vulkan1.2"
#define VK_GLSLC_STAGE "-fshader-stage=compute"
/* Room for every parameter at 8 bytes: 128, the least maxPushConstantsSize Vulkan guarantees. */
#define VK_PUSH_BYTES (HB_MAX_PARAMS * 8)

struct hb_kern {
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    char name[64];
    char origin[2048]; /* which SPIR-V runs and how it was made (rtc_describe) */
};

/* Reads a whole SPIR-V file into a malloc'd buffer, checking its magic number. */
static int vk_read_spirv(hb_ctx *ctx, const char *path, uint32_t **words, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return vk_fail(ctx, HB_ERROR, "open %s: %s", path, strerror(errno));
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    rewind(f);
    uint32_t *w = n >= 20 && n % 4 == 0 ? malloc((size_t)n) : NULL;
    int ok = w && fread(w, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok || w[0] != 0x07230203u) {
        free(w);
        return vk_fail(ctx, HB_ERROR, "%s is not a SPIR-V module (%ld bytes)", path, n);
    }
    *words = w;
    *bytes = (size_t)n;
    return HB_OK;
}

/* glslc for spec, the source's own include folders and macros first; its output slot at
 * *out_at, the source last. The word count, or -1 when they do not fit. */
#define VK_GLSLC_WORDS 48
static int vk_glslc_argv(const struct hb_kernel_spec *spec, char *buf, size_t len, char **argv, int *out_at)
{
    int n = 0;
    argv[n++] = "glslc";
    int user = rtc_user_flags(spec, buf, len, argv + n, VK_GLSLC_WORDS - 8);
    if (user < 0)
        return -1;
    n += user;
    argv[n++] = VK_GLSLC_TARGET, argv[n++] = VK_GLSLC_STAGE, argv[n++] = "-O", argv[n++] = "-o";
    *out_at = n;
    argv[n++] = NULL;
    argv[n++] = (char *)spec->source_path;
    argv[n] = NULL;
    return n;
}

/* Finds the SPIR-V for spec: build_dir/kernels/glsl/<stem>.spv when it was built from this
 * very file, else a run-time glslc compile into the per-user cache (users' own kernels run
 * without rebuilding the harness); lang spirv names the module itself. k->origin says which.
 * A user's shader that does not build, or cannot be built here, is an error, never a skip. */
static int vk_spirv_for(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern *k, uint32_t **words, size_t *bytes)
{
    if (strcmp(spec->lang, "spirv") == 0) {
        rtc_describe(spec, spec->source_path, "given as SPIR-V", "nothing", k->origin, sizeof k->origin);
        return vk_read_spirv(ctx, spec->source_path, words, bytes);
    }
    if (strcmp(spec->lang, "glsl") != 0)
        return vk_fail(ctx, HB_UNSUPPORTED, "the Vulkan backend runs glsl and spirv, not %s", spec->lang);
    char path[2048], err[512], flags[16384], *argv[VK_GLSLC_WORDS], tool[4096];
    int out_at = 0, n = vk_glslc_argv(spec, flags, sizeof flags, argv, &out_at);
    if (n < 0)
        return vk_fail(ctx, HB_ERROR, "%s: too many includes and defines for glslc", spec->name);
    rtc_join(argv, out_at - 1, tool, sizeof tool); /* the command without output and source */
    int rc = rtc_prebuilt(spec, "glsl", ".spv", path, sizeof path, err, sizeof err);
    if (rc > 0)
        rtc_describe(spec, path, "built by make", "glslc (backend.mk)", k->origin, sizeof k->origin);
    if (rc == 0 && !rtc_have("glslc"))
        return vk_fail(ctx, spec->user ? HB_ERROR : HB_UNSUPPORTED,
                       "cannot run glslc to compile %s at run time: glslc not found on PATH", spec->source_path);
    if (rc == 0)
        rc = rtc_cache_lookup(spec, "vulkan", argv, out_at - 1, tool, ".spv", path, sizeof path, err, sizeof err);
    if (rc < 0)
        return vk_fail(ctx, HB_ERROR, "%s", err);
    if (rc == 2)
        return vk_fail(ctx, HB_ERROR, "glslc %s failed: %s", spec->source_path, err);
    if (rc == 0) {
        rc = rtc_build(argv, out_at, path, err, sizeof err);
        if (rc < 0)
            return vk_fail(ctx, spec->user ? HB_ERROR : HB_UNSUPPORTED,
                           "cannot run glslc to compile %s at run time: %s", spec->source_path, err);
        if (rc > 0)
            return vk_fail(ctx, HB_ERROR, "glslc %s failed: %s", spec->source_path, err);
    }
    if (!k->origin[0])
        rtc_describe(spec, path, "built at run time", tool, k->origin, sizeof k->origin);
    return vk_read_spirv(ctx, path, words, bytes);
}

void vk_unload(hb_ctx *ctx, hb_kern *k)
{
    if (!k)
        return;
    if (k->pipeline)
        vkDestroyPipeline(ctx->dev, k->pipeline, NULL);
    if (k->pool)
        vkDestroyDescriptorPool(ctx->dev, k->pool, NULL); /* frees the set */
    if (k->layout)
        vkDestroyPipelineLayout(ctx->dev, k->layout, NULL);
    if (k->set_layout)
        vkDestroyDescriptorSetLayout(ctx->dev, k->set_layout, NULL);
    if (k->module)
        vkDestroyShaderModule(ctx->dev, k->module, NULL);
    free(k);
}

/* The layout is the same for every kernel: HB_MAX_BUF_ARGS storage buffers (a shader binds
 * as many as its op has; unused bindings are never written) and one push-constant range. */
static int vk_layouts(hb_ctx *ctx, hb_kern *k)
{
    VkDescriptorSetLayoutBinding b[HB_MAX_BUF_ARGS];
    for (uint32_t i = 0; i < HB_MAX_BUF_ARGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = HB_MAX_BUF_ARGS,
        .pBindings = b,
    };
    int st =
        vk_check(ctx, vkCreateDescriptorSetLayout(ctx->dev, &dci, NULL, &k->set_layout), "vkCreateDescriptorSetLayout");
    if (st != HB_OK)
        return st;
    VkPushConstantRange pcr = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .size = VK_PUSH_BYTES,
    };
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pcr,
    };
    st = vk_check(ctx, vkCreatePipelineLayout(ctx->dev, &lci, NULL, &k->layout), "vkCreatePipelineLayout");
    if (st != HB_OK)
        return st;
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, HB_MAX_BUF_ARGS};
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &ps,
    };
    st = vk_check(ctx, vkCreateDescriptorPool(ctx->dev, &pci, NULL, &k->pool), "vkCreateDescriptorPool");
    if (st != HB_OK)
        return st;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = k->pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &k->set_layout,
    };
    return vk_check(ctx, vkAllocateDescriptorSets(ctx->dev, &ai, &k->set), "vkAllocateDescriptorSets");
}

static int vk_pipeline(hb_ctx *ctx, hb_kern *k, const struct hb_kernel_spec *spec)
{
    uint32_t block[3] = {spec->block[0], spec->block[1], spec->block[2]};
    VkSpecializationMapEntry map[3];
    for (uint32_t i = 0; i < 3; i++)
        map[i] = (VkSpecializationMapEntry){i, i * 4, 4};
    VkSpecializationInfo si = {3, map, sizeof block, block};

    /* The width is exact without a request where the device has one size (lavapipe, NVIDIA);
     * where it varies, ask for it, and for full subgroups when the block allows them. */
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo req = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
        .requiredSubgroupSize = (uint32_t)ctx->width,
    };
    uint32_t threads = block[0] * block[1] * block[2];
    VkPipelineShaderStageCreateFlags flags = 0;
    uint32_t unit = ctx->required_size ? (uint32_t)ctx->width : ctx->max_subgroup;
    if (ctx->full_subgroups && unit > 0 && block[0] % unit == 0)
        flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    VkPipelineShaderStageCreateInfo stage = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        .pNext = ctx->required_size ? &req : NULL,
        .flags = flags,
        .stage = VK_SHADER_STAGE_COMPUTE_BIT,
        .module = k->module,
        .pName = spec->entry && *spec->entry ? spec->entry : "main",
        .pSpecializationInfo = &si,
    };
    if (ctx->required_size) {
        VkPhysicalDeviceSubgroupSizeControlProperties ssc = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &ssc};
        vkGetPhysicalDeviceProperties2(ctx->phys, &p2);
        if (threads > ssc.maxComputeWorkgroupSubgroups * (uint32_t)ctx->width)
            return vk_fail(ctx, HB_UNSUPPORTED, "%s: %u invocations exceed %u subgroups of width %d", spec->name,
                           threads, ssc.maxComputeWorkgroupSubgroups, ctx->width);
    }
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = stage,
        .layout = k->layout,
    };
    VkResult r = vkCreateComputePipelines(ctx->dev, VK_NULL_HANDLE, 1, &ci, NULL, &k->pipeline);
    if (r != VK_SUCCESS)
        return vk_fail(ctx, HB_ERROR, "vkCreateComputePipelines (%s): %s", spec->name, vk_result_str(r));
    return vk_validation_status(ctx);
}

/* The module with its workgroup memory poisoned in every workgroup (vk_poison.c), and the
 * report's account of the binary saying so. */
static void vk_poisoned(hb_kern *k, const struct hb_kernel_spec *spec, uint32_t **words, size_t *bytes)
{
    int left = 0, n = vk_poison_workgroup(words, bytes, spec->entry && *spec->entry ? spec->entry : "main", &left);
    size_t used = strlen(k->origin);
    if (n > 0 || left > 0)
        snprintf(k->origin + used, sizeof k->origin - used,
                 "; workgroup memory poisoned before each workgroup: %d of %d shared variables", n, n + left);
}

int vk_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out)
{
    vk_validation_status(ctx);
    *out = NULL;
    const VkPhysicalDeviceLimits *lim = &ctx->props.limits;
    const unsigned *b = spec->block;
    if (b[0] == 0 || b[1] == 0 || b[2] == 0 || b[0] > lim->maxComputeWorkGroupSize[0] ||
        b[1] > lim->maxComputeWorkGroupSize[1] || b[2] > lim->maxComputeWorkGroupSize[2] ||
        (uint64_t)b[0] * b[1] * b[2] > lim->maxComputeWorkGroupInvocations)
        return vk_fail(ctx, HB_UNSUPPORTED,
                       "%s: block %u x %u x %u outside the device's limits (%u x %u x %u, %u "
                       "invocations)",
                       spec->name, b[0], b[1], b[2], lim->maxComputeWorkGroupSize[0], lim->maxComputeWorkGroupSize[1],
                       lim->maxComputeWorkGroupSize[2], lim->maxComputeWorkGroupInvocations);
    uint32_t *words = NULL;
    size_t bytes = 0;
    hb_kern *k = calloc(1, sizeof *k);
    if (!k)
        return vk_fail(ctx, HB_ERROR, "out of memory for a kernel handle");
    int st = vk_spirv_for(ctx, spec, k, &words, &bytes);
    if (st != HB_OK) {
        free(k);
        return st;
    }
    snprintf(k->name, sizeof k->name, "%s", spec->name);
    vk_poisoned(k, spec, &words, &bytes);
    VkShaderModuleCreateInfo mci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = bytes,
        .pCode = words,
    };
    st = vk_check(ctx, vkCreateShaderModule(ctx->dev, &mci, NULL, &k->module), "vkCreateShaderModule");
    free(words);
    if (st == HB_OK)
        st = vk_layouts(ctx, k);
    if (st == HB_OK)
        st = vk_pipeline(ctx, k, spec);
    if (st != HB_OK) {
        vk_unload(ctx, k);
        return st;
    }
    *out = k;
    return HB_OK;
}

/* What the shader sees, in the kernel's declared order (else the op's ABI): the buffer each
 * binding 0, 1, ... holds, and the push-constant block of its integers and floats, 4 bytes
 * each as std430 lays out int, uint and float members (a 64-bit integer: 8, 8-aligned). */
struct vk_marshal {
    int n_bind;
    int bind[HB_MAX_BUF_ARGS]; /* index into args->bufs per binding */
    unsigned char push[VK_PUSH_BYTES];
};

static int vk_marshal(hb_ctx *ctx, const hb_kern *k, const struct hb_args *a, struct vk_marshal *m)
{
    memset(m, 0, sizeof *m);
    if (a->n_bufs < 0 || a->n_bufs > HB_MAX_BUF_ARGS || a->n_ints < 0 || a->n_ints > HB_MAX_INT_ARGS ||
        a->n_floats < 0 || a->n_floats > HB_MAX_FLOAT_ARGS || a->n_params < 0 || a->n_params > HB_MAX_PARAMS)
        return vk_fail(ctx, HB_ERROR, "%s: %d buffers, %d integers, %d floats, %d parameters exceed the ABI", k->name,
                       a->n_bufs, a->n_ints, a->n_floats, a->n_params);
    size_t at = 0;
    for (int i = 0; i < (a->n_params ? a->n_params : a->n_bufs + a->n_ints); i++) {
        struct hb_param p = a->n_params     ? a->params[i]
                            : i < a->n_bufs ? (struct hb_param){HB_PARAM_BUF, (unsigned char)i}
                                            : (struct hb_param){HB_PARAM_I32, (unsigned char)(i - a->n_bufs)};
        int have = p.kind == HB_PARAM_BUF                             ? a->n_bufs
                   : p.kind == HB_PARAM_F32                           ? a->n_floats
                   : p.kind == HB_PARAM_I32 || p.kind == HB_PARAM_I64 ? a->n_ints
                                                                      : 0;
        if (p.index >= have)
            return vk_fail(ctx, HB_ERROR, "%s: parameter %d (kind %d, index %d) is not among the %d given", k->name, i,
                           p.kind, p.index, have);
        if (p.kind == HB_PARAM_BUF) {
            m->bind[m->n_bind++] = p.index;
        } else if (p.kind == HB_PARAM_I64) {
            int64_t wide = a->ints[p.index];
            at = (at + 7) & ~(size_t)7;
            memcpy(m->push + at, &wide, 8), at += 8;
        } else {
            memcpy(m->push + at, p.kind == HB_PARAM_F32 ? (const void *)&a->floats[p.index] : &a->ints[p.index], 4);
            at += 4;
        }
    }
    return HB_OK;
}

/* Points binding i at the buffer the kernel declares i-th. */
static int vk_bind(hb_ctx *ctx, hb_kern *k, const struct hb_args *args, const struct vk_marshal *m)
{
    const VkPhysicalDeviceLimits *lim = &ctx->props.limits;
    VkDescriptorBufferInfo info[HB_MAX_BUF_ARGS];
    VkWriteDescriptorSet w[HB_MAX_BUF_ARGS];
    for (int i = 0; i < m->n_bind; i++) {
        int at = m->bind[i];
        const hb_buf *b = args->bufs[at];
        size_t off = args->offsets[at];
        if (!b || off >= b->size || off % lim->minStorageBufferOffsetAlignment)
            return vk_fail(ctx, HB_ERROR,
                           "%s: buffer argument %d at offset %zu is missing, past its end or "
                           "not %llu-aligned",
                           k->name, at, off, (unsigned long long)lim->minStorageBufferOffsetAlignment);
        /* The binding reaches to the end of the allocation: a kernel that writes past its
         * argument lands in the core's guard band, where it is seen. */
        size_t range = b->size - off;
        if (range > lim->maxStorageBufferRange)
            range = lim->maxStorageBufferRange;
        info[i] = (VkDescriptorBufferInfo){b->buf, off, range};
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = k->set,
            .dstBinding = (uint32_t)i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &info[i],
        };
    }
    /* Safe to rewrite: the previous launch of this kernel has finished (fence waited). */
    if (m->n_bind > 0)
        vkUpdateDescriptorSets(ctx->dev, (uint32_t)m->n_bind, w, 0, NULL);
    return HB_OK;
}

int vk_launch(hb_ctx *ctx, hb_kern *k, const unsigned grid[3], const struct hb_args *args, double *device_ms)
{
    vk_validation_status(ctx);
    if (device_ms)
        *device_ms = 0.0;
    const VkPhysicalDeviceLimits *lim = &ctx->props.limits;
    for (int d = 0; d < 3; d++)
        if (grid[d] > lim->maxComputeWorkGroupCount[d])
            return vk_fail(ctx, HB_UNSUPPORTED, "%s: grid[%d] = %u exceeds the device's %u", k->name, d, grid[d],
                           lim->maxComputeWorkGroupCount[d]);
    struct vk_marshal m;
    int st = vk_marshal(ctx, k, args, &m);
    if (st == HB_OK)
        st = vk_bind(ctx, k, args, &m);
    if (st == HB_OK)
        st = vk_cmd_begin(ctx);
    if (st != HB_OK)
        return st;
    vkCmdBindPipeline(ctx->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
    vkCmdBindDescriptorSets(ctx->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &k->set, 0, NULL);
    /* The whole range is pushed, unused bytes as zero. */
    vkCmdPushConstants(ctx->cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof m.push, m.push);
    vk_stamp(ctx, 0);
    vkCmdDispatch(ctx->cmd, grid[0], grid[1], grid[2]);
    vk_stamp(ctx, 1);
    return vk_cmd_end_submit(ctx, device_ms, k->name);
}

const char *vk_kernel_origin(hb_ctx *ctx, hb_kern *k)
{
    (void)ctx;
    return k && k->origin[0] ? k->origin : NULL;
}
