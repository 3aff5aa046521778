/* lab_util.cuh: the plumbing of speedlab.cu: error checks, device buffers, random fills,
 * float64 references and comparisons computed on the device, event timing, kernel
 * attributes and occupancy, options. No kernel under test lives here. */
#ifndef LAB_UTIL_CUH
#define LAB_UTIL_CUH
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x) lab_check_cuda((x), #x, __FILE__, __LINE__)
#define CKB(x) lab_check_blas((x), #x, __FILE__, __LINE__)
#define GUARD 4096

static void lab_check_cuda(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(e));
        exit(1);
    }
}
static void lab_check_blas(cublasStatus_t s, const char *what, const char *file, int line)
{
    if (s != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cublasGetStatusString(s));
        exit(1);
    }
}

/* A device array of n floats (at least one, so that a 0-size shape still has a pointer). */
struct dbuf {
    float *p = nullptr;
    size_t n;
    explicit dbuf(size_t count) : n(count)
    {
        CK(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(float)));
    }
    ~dbuf() { cudaFree(p); }
    dbuf(const dbuf &) = delete;
    dbuf &operator=(const dbuf &) = delete;
};

__global__ void lab_fill_uniform(float *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ (unsigned)(i >> 32) * 40503u ^ seed * 2246822519u;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        p[i] = (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f; /* [-1, 1), 24 bits */
    }
}
__global__ void lab_fill_value(float *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}
static void fill_uniform(float *p, size_t n, unsigned seed)
{
    lab_fill_uniform<<<1024, 256>>>(p, n, seed);
    CK(cudaGetLastError());
}
static void fill_value(float *p, size_t n, float v)
{
    lab_fill_value<<<1024, 256>>>(p, n, v);
    CK(cudaGetLastError());
}

/* R = A * B in float64 arithmetic, rounded to float once. One thread per element. */
__global__ void lab_ref_gemm(const float *A, const float *B, float *R, int M, int N, int K)
{
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    if (r >= M || c >= N)
        return;
    double s = 0;
    for (int k = 0; k < K; k++)
        s += (double)A[(size_t)r * K + k] * B[(size_t)k * N + c];
    R[(size_t)r * N + c] = (float)s;
}
static void ref_gemm(const float *A, const float *B, float *R, int M, int N, int K)
{
    dim3 g((N + 15) / 16, (M + 15) / 16);
    if (M > 0 && N > 0)
        lab_ref_gemm<<<g, dim3(16, 16)>>>(A, B, R, M, N, K);
    CK(cudaGetLastError());
}

/* out[0] = max |x - ref| as float bits (non-negative floats order as integers), out[1] =
 * max |ref|, out[2] = count of NaNs in x. */
__global__ void lab_compare(const float *x, const float *ref, size_t n, unsigned *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float d = fabsf(x[i] - ref[i]);
        if (d != d)
            atomicAdd(&out[2], 1u);
        else
            atomicMax(&out[0], __float_as_uint(d));
        atomicMax(&out[1], __float_as_uint(fabsf(ref[i])));
    }
}
/* max |x - ref| / max |ref| (0 when both are all zero), NaN when any x is NaN. */
static double compare(const float *x, const float *ref, size_t n)
{
    unsigned *d, h[3];
    CK(cudaMalloc(&d, sizeof h));
    CK(cudaMemset(d, 0, sizeof h));
    if (n)
        lab_compare<<<512, 256>>>(x, ref, n, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    float diff, mag;
    memcpy(&diff, &h[0], 4), memcpy(&mag, &h[1], 4);
    if (h[2])
        return 0.0 / 0.0;
    return mag > 0 ? diff / mag : diff;
}

/* A quiet NaN with a recognisable payload: what outputs hold before a launch. */
static float lab_poison(void)
{
    unsigned u = 0x7fc00badu;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static bool guard_intact(const float *g, size_t n, float poison)
{
    std::vector<float> h(n);
    CK(cudaMemcpy(h.data(), g, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (float v : h)
        if (memcmp(&v, &poison, 4) != 0)
            return false;
    return true;
}

/* Per block: float64 sum and sum of magnitudes of its chunk; then each partial must be
 * within 1e-5 of the magnitudes' sum. Returns the number of wrong partials. */
__global__ void lab_ref_partials(const float *x, long n, int chunk, const float *got, unsigned *wrong)
{
    __shared__ double s[256], a[256];
    long base = (long)blockIdx.x * chunk, end = n < base + chunk ? n : base + chunk;
    double sum = 0, mag = 0;
    for (long i = base + threadIdx.x; i < end; i += 256)
        sum += x[i], mag += fabs((double)x[i]);
    s[threadIdx.x] = sum, a[threadIdx.x] = mag;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o)
            s[threadIdx.x] += s[threadIdx.x + o], a[threadIdx.x] += a[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0 && !(fabs((double)got[blockIdx.x] - s[0]) <= 1e-5 * a[0] + 1e-30))
        atomicAdd(wrong, 1u);
}
static int check_partials(const float *x, long n, int chunk, const float *got, int blocks)
{
    unsigned *d, h = 0;
    CK(cudaMalloc(&d, sizeof h));
    CK(cudaMemset(d, 0, sizeof h));
    lab_ref_partials<<<blocks, 256>>>(x, n, chunk, got, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    return (int)h;
}

/* Median device time in ms of `runs` single launches, each between two events, after two
 * warm-up launches. */
static double time_median(const std::function<void()> &launch, int runs)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 2; i++)
        launch();
    std::vector<double> t;
    for (int i = 0; i < runs; i++) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct kattr {
    int regs, smem, local, blocks;
    double occupancy;
};
static kattr kernel_attrs(const void *fn, int threads)
{
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, fn));
    int blocks = 0, dev = 0, max_threads = 0;
    /* Not fatal: the calculator may refuse a cluster kernel (then blocks/SM reads -1). */
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        blocks = -1;
    }
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    return {a.numRegs, (int)a.sharedSizeBytes, (int)a.localSizeBytes, blocks,
            100.0 * blocks * threads / max_threads};
}

struct lab_opts {
    int sizes[8] = {1024, 2048, 4096, 8192};
    int n_sizes = 4;
    int runs = 5;
    long reduce_n = 1L << 28;
    bool do_opt = true, do_co = true, do_red = true;
    bool profile = false; /* one launch of each, no checks, no warm-ups: for ncu */
};
static lab_opts parse_opts(int argc, char **argv)
{
    lab_opts o;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--sizes")) {
            o.n_sizes = 0;
            for (const char *p = v; *p && o.n_sizes < 8; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
                o.sizes[o.n_sizes++] = atoi(p);
            i++;
        } else if (!strcmp(argv[i], "--runs")) {
            o.runs = std::max(1, atoi(v)), i++;
        } else if (!strcmp(argv[i], "--reduce-n")) {
            o.reduce_n = atol(v), i++;
        } else if (!strcmp(argv[i], "--only")) {
            o.do_opt = strstr(v, "opt") != nullptr;
            o.do_co = strstr(v, "co") != nullptr;
            o.do_red = strstr(v, "red") != nullptr;
            i++;
        } else if (!strcmp(argv[i], "--profile")) {
            o.profile = true;
        } else {
            fprintf(stderr, "usage: %s [--sizes 1024,2048,...] [--runs N] [--reduce-n N] "
                            "[--only opt,co,red] [--profile]\n", argv[0]);
            exit(2);
        }
    }
    return o;
}

/* Prints the device, driver and toolkit; returns the fp32 peak in TFLOPS (128 FMA lanes
 * per SM on sm_90 at the reported boost clock), 0 when unknown. */
static double print_device(void)
{
    int dev = 0, drv = 0, rt = 0, khz = 0;
    cudaDeviceProp p;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) != cudaSuccess)
        khz = 0;
    double peak = p.major == 9 ? p.multiProcessorCount * 128 * 2.0 * khz * 1e3 / 1e12 : 0;
    printf("device %s (sm_%d%d, %d SMs, %.0f MHz, L2 %d MiB), driver %d, runtime %d, fp32 peak %.1f "
           "TFLOPS\n", p.name, p.major, p.minor, p.multiProcessorCount, khz / 1e3,
           p.l2CacheSize >> 20, drv, rt, peak);
    return peak;
}
#endif
