/* vklab.c: times the GLSL sgemm_optimized candidates on one Vulkan device (the H200's NVIDIA
 * ICD, or lavapipe here), as `harness bench` would: timestamp queries around one dispatch,
 * two warm-ups, median of --runs. Each candidate is first checked against a float64 host
 * reference on odd, vec4-aligned and empty shapes. No cuBLAS here: speedlab prints
 * cuBLAS's TFLOPS in the same device call. Not a conformance test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define VK(x) vl_check((x), #x, __LINE__)
#define MAXV 8

struct variant {
    const char *name, *spv;
    uint32_t spec[5]; /* local size x y z, constants 3 and 4 (WHOLE_PATH, FRAG_AHEAD) */
    const char *what;
};

struct lab {
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t qfam;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool qp;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout pl;
    VkDescriptorPool dp;
    VkDescriptorSet ds;
    VkPhysicalDeviceMemoryProperties mem;
    double ns_per_tick;
    int stats; /* VK_KHR_pipeline_executable_properties is enabled: print the compiler's figures */
};

struct buf {
    VkBuffer b;
    VkDeviceMemory m;
    VkDeviceSize size;
    void *map;
};

static void vl_check(VkResult r, const char *what, int line)
{
    if (r != VK_SUCCESS) {
        fprintf(stderr, "vklab.c:%d: %s: VkResult %d\n", line, what, (int)r);
        exit(1);
    }
}

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vklab: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc(*len);
    if (!p || fread(p, 1, *len, f) != *len)
        exit(1);
    fclose(f);
    return p;
}

static uint32_t mem_type(const struct lab *l, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < l->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (l->mem.memoryTypes[i].propertyFlags & want) == want)
            return i;
    fprintf(stderr, "vklab: no memory type with flags 0x%x\n", (unsigned)want);
    exit(1);
}

static struct buf buf_new(const struct lab *l, VkDeviceSize size, int host)
{
    struct buf b = {0};
    b.size = size ? size : 16;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, b.size,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    VK(vkCreateBuffer(l->dev, &bi, NULL, &b.b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(l->dev, b.b, &req);
    VkMemoryPropertyFlags want = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                      : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size,
                               mem_type(l, req.memoryTypeBits, want)};
    VK(vkAllocateMemory(l->dev, &ai, NULL, &b.m));
    VK(vkBindBufferMemory(l->dev, b.b, b.m, 0));
    if (host)
        VK(vkMapMemory(l->dev, b.m, 0, b.size, 0, &b.map));
    return b;
}

static void buf_free(const struct lab *l, struct buf *b)
{
    vkDestroyBuffer(l->dev, b->b, NULL);
    vkFreeMemory(l->dev, b->m, NULL);
}

static void begin(struct lab *l)
{
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                   VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    VK(vkResetCommandBuffer(l->cmd, 0));
    VK(vkBeginCommandBuffer(l->cmd, &bi));
}

static void submit_wait(struct lab *l)
{
    VK(vkEndCommandBuffer(l->cmd));
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &l->cmd, 0, NULL};
    VK(vkResetFences(l->dev, 1, &l->fence));
    VK(vkQueueSubmit(l->queue, 1, &si, l->fence));
    VK(vkWaitForFences(l->dev, 1, &l->fence, VK_TRUE, UINT64_MAX));
}

/* dst <- src through the staging buffer (one direction per call). */
static void copy(struct lab *l, struct buf *dst, struct buf *src, VkDeviceSize bytes)
{
    begin(l);
    VkBufferCopy r = {0, 0, bytes};
    vkCmdCopyBuffer(l->cmd, src->b, dst->b, 1, &r);
    submit_wait(l);
}

static void lab_open(struct lab *l)
{
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vklab", 1, NULL, 0, VK_API_VERSION_1_1};
    VkInstanceCreateInfo ii = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    VK(vkCreateInstance(&ii, NULL, &l->inst));
    uint32_t n = 16;
    VkPhysicalDevice devs[16];
    VK(vkEnumeratePhysicalDevices(l->inst, &n, devs));
    const char *want = getenv("VKLAB_DEVICE");
    VkPhysicalDeviceProperties props;
    l->phys = VK_NULL_HANDLE;
    for (uint32_t i = 0; i < n && !l->phys; i++) {
        vkGetPhysicalDeviceProperties(devs[i], &props);
        if (want ? strstr(props.deviceName, want) != NULL : props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU)
            l->phys = devs[i];
    }
    if (!l->phys && !want && n)
        l->phys = devs[0];
    if (!l->phys) {
        fprintf(stderr, "vklab: no Vulkan device%s%s\n", want ? " named like " : "", want ? want : "");
        exit(1);
    }
    vkGetPhysicalDeviceProperties(l->phys, &props);
    vkGetPhysicalDeviceMemoryProperties(l->phys, &l->mem);
    l->ns_per_tick = props.limits.timestampPeriod;
    printf("vulkan device %s (API %u.%u, driver 0x%x), shared memory %u B per workgroup\n", props.deviceName,
           VK_VERSION_MAJOR(props.apiVersion), VK_VERSION_MINOR(props.apiVersion), props.driverVersion,
           props.limits.maxComputeSharedMemorySize);
    VkQueueFamilyProperties qf[16];
    uint32_t nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(l->phys, &nq, qf);
    for (l->qfam = 0; l->qfam < nq && !(qf[l->qfam].queueFlags & VK_QUEUE_COMPUTE_BIT); l->qfam++) {
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, l->qfam, 1, &prio};
    /* Registers, shared memory and spills per pipeline, where the driver reports them. */
    const char *ext = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    VkExtensionProperties have[256];
    uint32_t nh = 256;
    if (vkEnumerateDeviceExtensionProperties(l->phys, NULL, &nh, have) < 0)
        nh = 0;
    for (uint32_t i = 0; i < nh; i++)
        l->stats |= strcmp(have[i].extensionName, ext) == 0;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pf = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, NULL, VK_TRUE};
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, l->stats ? &pf : NULL, 0, 1, &qi, 0, NULL,
                             l->stats ? 1u : 0u, &ext, NULL};
    VK(vkCreateDevice(l->phys, &di, NULL, &l->dev));
    vkGetDeviceQueue(l->dev, l->qfam, 0, &l->queue);
    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                  VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, l->qfam};
    VK(vkCreateCommandPool(l->dev, &pi, NULL, &l->pool));
    VkCommandBufferAllocateInfo ci = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, l->pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VK(vkAllocateCommandBuffers(l->dev, &ci, &l->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0};
    VK(vkCreateFence(l->dev, &fi, NULL, &l->fence));
    VkQueryPoolCreateInfo qpi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP, 2, 0};
    VK(vkCreateQueryPool(l->dev, &qpi, NULL, &l->qp));
}

static void layout_open(struct lab *l)
{
    VkDescriptorSetLayoutBinding b[3];
    for (uint32_t i = 0; i < 3; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dli = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 3, b};
    VK(vkCreateDescriptorSetLayout(l->dev, &dli, NULL, &l->dsl));
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 12};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &l->dsl, 1, &pc};
    VK(vkCreatePipelineLayout(l->dev, &pli, NULL, &l->pl));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 1, &ps};
    VK(vkCreateDescriptorPool(l->dev, &dpi, NULL, &l->dp));
    VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, l->dp, 1, &l->dsl};
    VK(vkAllocateDescriptorSets(l->dev, &dai, &l->ds));
}

static VkPipeline pipeline(struct lab *l, const struct variant *v)
{
    size_t len;
    void *code = read_file(v->spv, &len);
    VkShaderModuleCreateInfo si = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, len, code};
    VkShaderModule mod;
    VK(vkCreateShaderModule(l->dev, &si, NULL, &mod));
    free(code);
    VkSpecializationMapEntry map[5];
    for (uint32_t i = 0; i < 5; i++)
        map[i] = (VkSpecializationMapEntry){i, i * 4, 4};
    VkSpecializationInfo spec = {5, map, sizeof v->spec, v->spec};
    VkComputePipelineCreateInfo ci = {
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, mod, "main", &spec},
        l->pl, VK_NULL_HANDLE, 0};
    if (l->stats)
        ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkPipeline p;
    VK(vkCreateComputePipelines(l->dev, VK_NULL_HANDLE, 1, &ci, NULL, &p));
    vkDestroyShaderModule(l->dev, mod, NULL);
    return p;
}

/* The driver's own figures for the pipeline's one executable (NVIDIA: registers, shared
 * memory, spills...), on one line. */
static void print_stats(const struct lab *l, VkPipeline p)
{
    PFN_vkGetPipelineExecutableStatisticsKHR get =
        (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(l->dev, "vkGetPipelineExecutableStatisticsKHR");
    if (!l->stats || !get)
        return;
    VkPipelineExecutableInfoKHR ei = {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, NULL, p, 0};
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++)
        st[i] = (VkPipelineExecutableStatisticKHR){VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR, NULL, "", "", 0, {0}};
    if (get(l->dev, &ei, &n, st) < 0)
        return;
    printf("           ");
    for (uint32_t i = 0; i < n; i++) {
        if (st[i].format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR)
            printf(" %s=%llu;", st[i].name, (unsigned long long)st[i].value.u64);
        else if (st[i].format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR)
            printf(" %s=%lld;", st[i].name, (long long)st[i].value.i64);
        else if (st[i].format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR)
            printf(" %s=%g;", st[i].name, st[i].value.f64);
    }
    printf("\n");
}

static void bind(struct lab *l, struct buf *a, struct buf *b, struct buf *c)
{
    VkDescriptorBufferInfo bi[3] = {{a->b, 0, VK_WHOLE_SIZE}, {b->b, 0, VK_WHOLE_SIZE}, {c->b, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, l->ds, 0, 0, 3,
                              VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, bi, NULL};
    vkUpdateDescriptorSets(l->dev, 1, &w, 0, NULL);
}

/* One dispatch between two timestamps; returns its device time in ms. */
static double dispatch(struct lab *l, VkPipeline p, int M, int N, int K)
{
    begin(l);
    vkCmdResetQueryPool(l->cmd, l->qp, 0, 2);
    vkCmdBindPipeline(l->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
    vkCmdBindDescriptorSets(l->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, l->pl, 0, 1, &l->ds, 0, NULL);
    int32_t dims[3] = {M, N, K};
    vkCmdPushConstants(l->cmd, l->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof dims, dims);
    vkCmdWriteTimestamp(l->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, l->qp, 0);
    if (M > 0 && N > 0)
        vkCmdDispatch(l->cmd, (uint32_t)(N + 127) / 128, (uint32_t)(M + 127) / 128, 1);
    vkCmdWriteTimestamp(l->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->qp, 1);
    submit_wait(l);
    uint64_t ts[2];
    VK(vkGetQueryPoolResults(l->dev, l->qp, 0, 2, sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    return (double)(ts[1] - ts[0]) * l->ns_per_tick * 1e-6;
}

static void fill(float *p, size_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}

/* dst (device) <- n floats from host memory, through the staging buffer. */
static void upload(struct lab *l, struct buf *dst, struct buf *stage, const float *src, size_t n)
{
    memcpy(stage->map, src, n * 4);
    copy(l, dst, stage, n * 4);
}

/* Runs p on one shape and compares with a float64 host product: max |C - ref| / max |ref|,
 * or NaN if an output was left unwritten (the NaN poison survives). */
static double check_shape(struct lab *l, VkPipeline p, int M, int N, int K, struct buf *stage)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    struct buf A = buf_new(l, na * 4, 0), B = buf_new(l, nb * 4, 0), C = buf_new(l, nc * 4, 0);
    float *ha = malloc((na + 1) * 4), *hb = malloc((nb + 1) * 4), *hc = malloc((nc + 1) * 4);
    fill(ha, na, 3 + M), fill(hb, nb, 5 + N);
    for (size_t i = 0; i < nc; i++)
        hc[i] = NAN;
    upload(l, &A, stage, ha, na), upload(l, &B, stage, hb, nb), upload(l, &C, stage, hc, nc);
    bind(l, &A, &B, &C);
    dispatch(l, p, M, N, K);
    copy(l, stage, &C, nc * 4);
    const float *got = stage->map;
    double diff = 0, mag = 0;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)ha[(size_t)r * K + k] * hb[(size_t)k * N + c];
            double g = got[(size_t)r * N + c];
            diff = g != g ? NAN : fabs(g - s) > diff ? fabs(g - s) : diff;
            mag = fmax(mag, fabs(s));
        }
    free(ha), free(hb), free(hc);
    buf_free(l, &A), buf_free(l, &B), buf_free(l, &C);
    return mag > 0 ? diff / mag : diff;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void check_all(struct lab *l, const struct variant *vs, int nv, VkPipeline *pipes, struct buf *stage)
{
    static const int shapes[][3] = {{257, 263, 251}, {260, 264, 136}, {17, 33, 0}, {1, 1, 1}, {129, 127, 300}};
    for (int v = 0; v < nv; v++) {
        pipes[v] = pipeline(l, &vs[v]);
        double worst = 0;
        for (int s = 0; s < 5; s++) {
            double e = check_shape(l, pipes[v], shapes[s][0], shapes[s][1], shapes[s][2], stage);
            if (!(e <= 1e-5))
                printf("  FAIL %s %dx%dx%d: max |C - ref| / max |ref| = %.3g\n", vs[v].name, shapes[s][0],
                       shapes[s][1], shapes[s][2], e);
            worst = e > worst || e != e ? e : worst;
        }
        printf("  %-8s checked, max rel err %.2e: %s\n", vs[v].name, worst, vs[v].what);
        print_stats(l, pipes[v]);
    }
}

/* ms[v][s]: median of `runs` dispatches of variant v at size s, after two warm-ups. */
static void time_all(struct lab *l, int nv, VkPipeline *pipes, struct buf *stage, const int *sizes, int n_sizes,
                     int runs, double ms[][8])
{
    for (int s = 0; s < n_sizes; s++) {
        size_t n = (size_t)sizes[s];
        struct buf A = buf_new(l, n * n * 4, 0), B = buf_new(l, n * n * 4, 0), C = buf_new(l, n * n * 4, 0);
        fill(stage->map, n * n, 1), copy(l, &A, stage, n * n * 4);
        fill(stage->map, n * n, 2), copy(l, &B, stage, n * n * 4);
        bind(l, &A, &B, &C);
        /* Raise the clocks first: after the checks the GPU idles, and two warm-ups of a
         * 0.1 ms dispatch do not wake it (round 1 timed 1024 at a tenth of 2048's rate). */
        for (double busy = 0; busy < 300.0;)
            busy += dispatch(l, pipes[0], (int)n, (int)n, (int)n);
        for (int v = 0; v < nv; v++) {
            double t[64];
            for (int i = -2; i < runs; i++) {
                double x = dispatch(l, pipes[v], (int)n, (int)n, (int)n);
                if (i >= 0)
                    t[i] = x;
            }
            qsort(t, (size_t)runs, sizeof t[0], cmp_double);
            ms[v][s] = t[runs / 2];
        }
        buf_free(l, &A), buf_free(l, &B), buf_free(l, &C);
    }
}

/* Usage: vklab [DIR with the .spv files (build/speedlab)] [--sizes 1024,...] [--runs N];
 * VKLAB_DEVICE picks a device by a piece of its name (default: the first GPU). */
int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/speedlab";
    int sizes[8] = {1024, 2048, 4096, 8192}, n_sizes = 4, runs = 5;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]) < 1 ? 1 : atoi(argv[i + 1]) > 64 ? 64 : atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes"))
            for (n_sizes = 0; n_sizes < 8 && argv[i + 1][0];) {
                sizes[n_sizes++] = atoi(argv[i + 1]);
                char *comma = strchr(argv[i + 1], ',');
                argv[i + 1] = comma ? comma + 1 : argv[i + 1] + strlen(argv[i + 1]);
            }
    }
    char p0[1024], p2[1024];
    snprintf(p0, sizeof p0, "%s/glsl_v0.spv", dir);
    snprintf(p2, sizeof p2, "%s/glsl_ship.spv", dir);
    struct variant vs[] = {
        {"glsl_v0", p0, {16, 16, 1, 1, 1}, "shipped before issue 15"},
        {"g_ship", p2, {16, 16, 1, 1, 1}, "kernels/vulkan/sgemm_optimized.comp in this tree (whole-tile path, frags ahead)"},
        {"g_edge", p2, {16, 16, 1, 0, 1}, "g_ship with every tile on the checked path"},
        {"g_nofa", p2, {16, 16, 1, 1, 0}, "g_ship without fragments read a step ahead"},
    };
    int nv = (int)(sizeof vs / sizeof vs[0]);
    struct lab l;
    memset(&l, 0, sizeof l);
    lab_open(&l);
    layout_open(&l);
    size_t maxn = 512;
    for (int s = 0; s < n_sizes; s++)
        maxn = (size_t)sizes[s] > maxn ? (size_t)sizes[s] : maxn;
    struct buf stage = buf_new(&l, maxn * maxn * 4, 1);
    VkPipeline pipes[MAXV];
    double ms[MAXV][8];
    check_all(&l, vs, nv, pipes, &stage);
    time_all(&l, nv, pipes, &stage, sizes, n_sizes, runs, ms);
    printf("\nGLSL sgemm_optimized candidates, TFLOPS (median of %d):\n  %-8s", runs, "kernel");
    for (int s = 0; s < n_sizes; s++)
        printf(" %8d", sizes[s]);
    printf("\n");
    for (int v = 0; v < nv; v++) {
        printf("  %-8s", vs[v].name);
        for (int s = 0; s < n_sizes; s++)
            printf(" %8.2f", 2.0 * sizes[s] * (double)sizes[s] * sizes[s] / (ms[v][s] * 1e9));
        printf("\n");
    }
    return 0;
}
