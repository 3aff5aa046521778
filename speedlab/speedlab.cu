/* speedlab.cu: one-run benchmark for issue 15. Times every candidate of sgemm_optimized,
 * sgemm_coarsened and the two reductions (speedlab/kernels/) against cuBLAS fp32 (default
 * math: no TF32) and a device-to-device copy, in the same process, with CUDA events: two
 * warm-ups, median of --runs single launches, as `harness bench` does. Each candidate is
 * also checked against a float64 reference on odd, aligned and unaligned shapes, and its
 * registers, shared memory and theoretical occupancy are printed. Not a conformance
 * test: the harness (emulator, guard bands, every tier) is that. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../kernels/cuda/reduce_generic.cu"
#include "../kernels/cuda/reduce_warp32.cu"
#include "../kernels/cuda/sgemm_coarsened.cu"
#include "../kernels/cuda/sgemm_optimized.cu"
#include "kernels/coarsened_v0.cu"
#include "kernels/coarsened_variants.cu"
#include "kernels/reduce_v0.cu"
#include "kernels/reduce_variants.cu"
#include "kernels/sgemm_gpuonly.cu"
#include "kernels/sgemm_split.cu"
#include "kernels/sgemm_v0.cu"
#include "kernels/sgemm_v4.cu"
#include "lab_util.cuh"

typedef void (*sgemm_fn)(const float *, const float *, float *, int, int, int);
typedef void (*reduce_fn)(const float *, float *, int);

struct gemm_kernel {
    const char *name;
    sgemm_fn fn;
    unsigned bx, by, tile, z;
    const char *what;
};
struct red_kernel {
    const char *name;
    reduce_fn fn;
    int chunk;
    const char *what;
};

static const gemm_kernel k_opt[] = {
    {"opt_v0", sl_sgemm_v0, 16, 16, 128, 1, "shipped: one smem stage, two barriers per tile, scalar loads"},
    {"opt_v4", sl_sgemm_v4, 16, 16, 128, 1, "round 1's best: warp tiles, 2 stages, reg prefetch, 128-bit loads"},
    {"opt_v6", sl_sgemm_v6, 16, 16, 128, 2, "v4-like, split in two along K when tiles <= 128 (global counter)"},
    {"opt_ship", sgemm_optimized, 16, 16, 128, 2, "kernels/cuda/sgemm_optimized.cu in this tree (= s2)"},
    {"opt_s1", sl_opt_s1, 16, 16, 128, 1, "whole-tile fast path, unrolled by 2, no split"},
    {"opt_s4", sl_opt_s4, 16, 16, 128, 4, "s1 + split-K in 4 (cluster 1x1x4, DSMEM sum)"},
    {"opt_s1r", sl_opt_s1r, 16, 16, 128, 1, "s1 with up to 255 registers (1 block/SM)"},
    {"opt_s2r", sl_opt_s2r, 16, 16, 128, 2, "s2 with up to 255 registers (1 block/SM)"},
};
static const gemm_kernel k_co[] = {
    {"co_v0", sl_co_v0, 16, 16, 32, 1, "shipped: 32x32 tiles, scalar smem reads"},
    {"co_ship", sgemm_coarsened, 16, 16, 32, 1, "kernels/cuda/sgemm_coarsened.cu in this tree (= c32)"},
    {"co_c32", sl_co_c32, 16, 16, 32, 1, "T=32, 128-bit smem reads along k, warps as 4x8 threads"},
    {"co_c64", sl_co_c64, 32, 32, 64, 1, "T=64 (1024 threads), same reads"},
    {"co_sh", sl_co_sh, 16, 16, 32, 1, "c32 with B by warp shuffles (tests the shared-memory roofline)"},
};
static const red_kernel k_red[] = {
    {"rw_v0", sl_rw_v0, 1024, "shipped reduce_warp32: chunk 1024, 32-bit loads"},
    {"rw_ship", reduce_warp32, 8192, "kernels/cuda/reduce_warp32.cu in this tree (= rw_8k)"},
    {"rw_2k", sl_rw_2k, 2048, "warp32 tree, chunk 2048, 128-bit loads"},
    {"rw_4k", sl_rw_4k, 4096, "warp32 tree, chunk 4096, 128-bit loads"},
    {"rw_8k", sl_rw_8k, 8192, "warp32 tree, chunk 8192, 128-bit loads"},
    {"rw_16k", sl_rw_16k, 16384, "warp32 tree, chunk 16384, 128-bit loads"},
    {"rg_v0", sl_rg_v0, 1024, "shipped reduce_generic: chunk 1024, 32-bit loads"},
    {"rg_ship", reduce_generic, 8192, "kernels/cuda/reduce_generic.cu in this tree (= rg_8k)"},
    {"rg_2k", sl_rg_2k, 2048, "generic, chunk 2048, 128-bit loads"},
    {"rg_4k", sl_rg_4k, 4096, "generic, chunk 4096, 128-bit loads"},
    {"rg_8k", sl_rg_8k, 8192, "generic, chunk 8192, 128-bit loads"},
    {"rg_16k", sl_rg_16k, 16384, "generic, chunk 16384, 128-bit loads"},
};
#define COUNT(a) (int)(sizeof(a) / sizeof(a[0]))

static cublasHandle_t g_blas;

/* false when the launch was refused (a cluster shape this GPU will not schedule, say):
 * that candidate is reported and skipped, the run goes on. */
static bool launch_gemm(const gemm_kernel &k, const float *A, const float *B, float *C, int M,
                        int N, int K)
{
    dim3 grid((N + k.tile - 1) / k.tile, (M + k.tile - 1) / k.tile, k.z), block(k.bx, k.by, 1);
    if (M > 0 && N > 0)
        k.fn<<<grid, block>>>(A, B, C, M, N, K);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        printf("    LAUNCH FAILED %s: %s\n", k.name, cudaGetErrorString(e));
    return e == cudaSuccess;
}

/* Row-major C = A * B as column-major C^T = B^T A^T, as the harness's cuda backend. */
static void launch_cublas(const float *A, const float *B, float *C, int M, int N, int K)
{
    const float one = 1.0f, zero = 0.0f;
    CKB(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K > 0 ? K : 1,
                    &zero, C, N));
}

static void print_attrs(const char *name, const void *fn, int threads, const char *what)
{
    kattr a = kernel_attrs(fn, threads);
    printf("  %-8s regs %3d  smem %6d B  local %4d B  blocks/SM %2d  occupancy %5.1f%%  %s\n", name,
           a.regs, a.smem, a.local, a.blocks, a.occupancy, what);
}

/* Checks one kernel on the shapes that reach every load path: odd sizes (scalar loads),
 * multiples of 4 off the tile (128-bit loads, edge tiles), whole interior tiles beside edge
 * tiles (1032 x 1160 x 1032), pointers 4 bytes off 16-byte alignment, K = 0, a single
 * element, one k tile shared by split-K blocks. 0 when every shape is within tolerance. */
static int check_gemm(const gemm_kernel *k, bool vendor, double *worst)
{
    static const int shapes[][4] = {{1000, 1001, 999, 0}, {1020, 1028, 1036, 0}, {260, 260, 260, 1},
                                    {17, 33, 0, 0},       {1, 1, 1, 0},          {129, 127, 2048, 0},
                                    {1024, 1024, 1024, 0}, {1032, 1160, 1032, 0}, {264, 264, 264, 1},
                                    {256, 256, 8, 0}};
    int bad = 0;
    *worst = 0;
    for (const auto &s : shapes) {
        int M = s[0], N = s[1], K = s[2], off = s[3];
        dbuf A((size_t)M * K + off), B((size_t)K * N + off), C((size_t)M * N + off + GUARD);
        dbuf R((size_t)M * N);
        fill_uniform(A.p, A.n, 11 + M), fill_uniform(B.p, B.n, 23 + N);
        fill_value(C.p, C.n, lab_poison()); /* NaN: an unwritten element fails */
        ref_gemm(A.p + off, B.p + off, R.p, M, N, K);
        if (vendor)
            launch_cublas(A.p + off, B.p + off, C.p + off, M, N, K);
        else if (!launch_gemm(*k, A.p + off, B.p + off, C.p + off, M, N, K))
            return 1000; /* not timed */
        CK(cudaDeviceSynchronize());
        double rel = compare(C.p + off, R.p, (size_t)M * N);
        bool guard_ok = guard_intact(C.p + off + (size_t)M * N, GUARD, lab_poison());
        if (!(rel <= 1e-5) || !guard_ok) {
            printf("    FAIL %s %dx%dx%d%s: max |C - ref| / max |ref| = %.3g%s\n",
                   vendor ? "cublas" : k->name, M, N, K, off ? " (unaligned)" : "", rel,
                   guard_ok ? "" : ", wrote past C");
            bad++;
        }
        if (rel > *worst || rel != rel)
            *worst = rel;
    }
    return bad;
}

struct gemm_row {
    const char *name;
    double ms[8];
    double err;
    int bad;
};

static void run_gemm_family(const char *title, const gemm_kernel *ks, int nk, const lab_opts &o,
                            std::vector<gemm_row> &rows, std::vector<double> &blas_ms)
{
    printf("\n== %s ==\n", title);
    for (int i = 0; i < nk; i++)
        print_attrs(ks[i].name, (const void *)ks[i].fn, ks[i].bx * ks[i].by, ks[i].what);
    for (int i = 0; i < nk; i++) {
        gemm_row r = {ks[i].name, {0}, 0, 0};
        r.bad = check_gemm(&ks[i], false, &r.err);
        rows.push_back(r);
    }
    for (int s = 0; s < o.n_sizes; s++) {
        int n = o.sizes[s];
        dbuf A((size_t)n * n), B((size_t)n * n), C((size_t)n * n);
        fill_uniform(A.p, A.n, 1), fill_uniform(B.p, B.n, 2);
        double before = time_median([&] { launch_cublas(A.p, B.p, C.p, n, n, n); }, o.runs);
        for (int i = 0; i < nk; i++) {
            gemm_row &r = rows[rows.size() - nk + i];
            r.ms[s] = r.bad >= 1000 ? 0.0 / 0.0
                                    : time_median([&] { launch_gemm(ks[i], A.p, B.p, C.p, n, n, n); }, o.runs);
        }
        double after = time_median([&] { launch_cublas(A.p, B.p, C.p, n, n, n); }, o.runs);
        printf("  n=%d cuBLAS %.3f ms before, %.3f ms after the candidates\n", n, before, after);
        if ((int)blas_ms.size() <= s)
            blas_ms.push_back(std::min(before, after));
        else
            blas_ms[s] = std::min(blas_ms[s], std::min(before, after));
    }
}

static void print_gemm_table(const char *title, const std::vector<gemm_row> &rows,
                             const std::vector<double> &blas_ms, const lab_opts &o, double peak)
{
    printf("\n%s: TFLOPS and %% of cuBLAS (cuBLAS = best of its timings in this run)\n", title);
    printf("  %-8s", "kernel");
    for (int s = 0; s < o.n_sizes; s++)
        printf(" %15d", o.sizes[s]);
    printf("  max rel err\n  %-8s", "cuBLAS");
    for (int s = 0; s < o.n_sizes; s++) {
        double tf = 2.0 * o.sizes[s] * (double)o.sizes[s] * o.sizes[s] / (blas_ms[s] * 1e9);
        printf("   %6.2f (%3.0f%%p)", tf, peak > 0 ? 100 * tf / peak : 0.0);
    }
    printf("\n");
    for (const gemm_row &r : rows) {
        printf("  %-8s", r.name);
        for (int s = 0; s < o.n_sizes; s++) {
            double tf = 2.0 * o.sizes[s] * (double)o.sizes[s] * o.sizes[s] / (r.ms[s] * 1e9);
            printf("   %6.2f %6.1f%%", tf, 100.0 * blas_ms[s] / r.ms[s]);
        }
        printf("  %.2e %s\n", r.err, r.bad ? "FAIL" : "ok");
    }
}

/* Reductions: each candidate's partials checked against float64 sums, per block, on the
 * timed n, an odd n, and an x 4 bytes off alignment; then timed at n. */
struct red_result {
    long n;
    double copy_gbs, ms[COUNT(k_red)];
    int bad[COUNT(k_red)];
};

static void run_reduce(const lab_opts &o, red_result &res)
{
    printf("\n== reductions ==\n");
    for (int i = 0; i < COUNT(k_red); i++)
        print_attrs(k_red[i].name, (const void *)k_red[i].fn, 256, k_red[i].what);
    long n = o.reduce_n;
    dbuf X((size_t)n + 1), Y((size_t)n);
    fill_uniform(X.p, X.n, 5);
    double copy_ms = time_median([&] {
        CK(cudaMemcpyAsync(Y.p, X.p, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice));
    }, o.runs);
    res.n = n;
    res.copy_gbs = 2.0 * n * sizeof(float) / (copy_ms * 1e6);
    double *ms = res.ms;
    int *bad = res.bad;
    for (int i = 0; i < COUNT(k_red); i++) {
        const red_kernel &k = k_red[i];
        bad[i] = 0;
        const long ns[][2] = {{n, 0}, {1000003, 0}, {(1 << 20) + 5, 1}, {1, 0}};
        for (const auto &c : ns) {
            int blocks = (int)((c[0] + k.chunk - 1) / k.chunk);
            dbuf P((size_t)blocks);
            fill_value(P.p, P.n, lab_poison());
            k.fn<<<blocks, 256>>>(X.p + c[1], P.p, (int)c[0]);
            CK(cudaGetLastError());
            int wrong = check_partials(X.p + c[1], c[0], k.chunk, P.p, blocks);
            if (wrong) {
                printf("    FAIL %s n=%ld%s: %d of %d partials wrong\n", k.name, c[0],
                       c[1] ? " (unaligned)" : "", wrong, blocks);
                bad[i]++;
            }
        }
        int blocks = (int)((n + k.chunk - 1) / k.chunk);
        dbuf P((size_t)blocks);
        ms[i] = time_median([&] {
            k.fn<<<blocks, 256>>>(X.p, P.p, (int)n);
            CK(cudaGetLastError());
        }, o.runs);
    }
}

static void print_reduce(const red_result &r)
{
    printf("\nreductions at n = %ld floats: GB/s read, %% of the device copy (%.1f GB/s read+write)\n",
           r.n, r.copy_gbs);
    for (int i = 0; i < COUNT(k_red); i++) {
        double gbs = r.n * sizeof(float) / (r.ms[i] * 1e6);
        printf("  %-8s chunk %5d %9.1f GB/s %7.1f%%  %s\n", k_red[i].name, k_red[i].chunk, gbs,
               100 * gbs / r.copy_gbs, r.bad[i] ? "FAIL" : "ok");
    }
}

/* --profile: cuBLAS and each selected SGEMM candidate once at the first size, each
 * reduction once at --reduce-n, nothing else on the GPU but the input fills: what ncu
 * should see. */
static void profile_once(const lab_opts &o)
{
    int n = o.sizes[0];
    dbuf A((size_t)n * n), B((size_t)n * n), C((size_t)n * n);
    fill_uniform(A.p, A.n, 1), fill_uniform(B.p, B.n, 2);
    launch_cublas(A.p, B.p, C.p, n, n, n);
    for (int i = 0; o.do_opt && i < COUNT(k_opt); i++)
        launch_gemm(k_opt[i], A.p, B.p, C.p, n, n, n);
    for (int i = 0; o.do_co && i < COUNT(k_co); i++)
        launch_gemm(k_co[i], A.p, B.p, C.p, n, n, n);
    if (o.do_red) {
        dbuf X((size_t)o.reduce_n), P((size_t)o.reduce_n / 1024 + 1);
        fill_uniform(X.p, X.n, 5);
        for (int i = 0; i < COUNT(k_red); i++) {
            k_red[i].fn<<<(int)((o.reduce_n + k_red[i].chunk - 1) / k_red[i].chunk), 256>>>(X.p, P.p, (int)o.reduce_n);
            CK(cudaGetLastError());
        }
    }
    CK(cudaDeviceSynchronize());
}

int main(int argc, char **argv)
{
    lab_opts o = parse_opts(argc, argv);
    double peak = print_device();
    CKB(cublasCreate(&g_blas));
    CKB(cublasSetMathMode(g_blas, CUBLAS_DEFAULT_MATH));
    if (o.profile) {
        profile_once(o);
        CKB(cublasDestroy(g_blas));
        return 0;
    }
    int ver = 0;
    CKB(cublasGetVersion(g_blas, &ver));
    printf("cuBLAS %d, default math (fp32, no TF32); median of %d launches after 2 warm-ups\n", ver,
           o.runs);
    double err = 0;
    if (check_gemm(nullptr, true, &err))
        printf("  (the float64 reference disagrees with cuBLAS: the checks above are suspect)\n");
    std::vector<gemm_row> opt_rows, co_rows;
    std::vector<double> blas_ms;
    if (o.do_opt)
        run_gemm_family("sgemm_optimized candidates", k_opt, COUNT(k_opt), o, opt_rows, blas_ms);
    if (o.do_co)
        run_gemm_family("sgemm_coarsened candidates", k_co, COUNT(k_co), o, co_rows, blas_ms);
    red_result red;
    if (o.do_red)
        run_reduce(o, red);
    printf("\n==== summary ====\n");
    if (o.do_red)
        print_reduce(red);
    if (o.do_opt)
        print_gemm_table("sgemm_optimized", opt_rows, blas_ms, o, peak);
    if (o.do_co)
        print_gemm_table("sgemm_coarsened", co_rows, blas_ms, o, peak);
    CKB(cublasDestroy(g_blas));
    return 0;
}
