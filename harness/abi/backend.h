/* SPDX-License-Identifier: MIT */
/* backend.h: the one interface between the harness core and a compute API.
 * Each backend (Vulkan, CUDA, HIP, the CPU SIMT emulator) is a shared object
 * build/backends/hb_<name>.so exporting hb_backend_entry(); the core dlopens it
 * in a child process only, so a crashing driver never takes the run down.
 * Nothing here names an API; backends include only this header. Like SQLite's
 * sqlite3_vfs the struct is versioned: fields are only ever appended. */
#ifndef HB_BACKEND_H
#define HB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* ABI history. 1: the original. 2: appends declared parameter lists (hb_kernel_spec.params,
 * hb_args.params), each buffer's data size, dynamic shared memory, user-kernel builds, the
 * backend's platform and exact out-of-bounds access reports. 3: appends page-locked host
 * memory (host_alloc, host_free). 4: appends transfers in batches (upload_many,
 * download_many). 5: appends each launch's number within its case (hb_args.repeat). 6: appends
 * capability bits (caps), so the core never decides by a backend's name. 7: appends a kernel's
 * include folders and macro definitions (hb_kernel_spec.includes, defines), which every
 * compiler that builds its source is given; hb_backend is unchanged. 8: appends prepare, the
 * part of a load that runs none of the kernel's code. 9: appends the entries of the kernels
 * built from the same source with the same flags (hb_kernel_spec.siblings), so a backend can
 * build a file once for all of them; hb_backend is unchanged. The loader accepts
 * any ABI from HB_BACKEND_ABI_MIN up and upgrades an older table once, at load (loader.c):
 * the fields it lacks read as NULL or 0, so the rest of the core never checks be->abi. */
#define HB_BACKEND_ABI 9
#define HB_BACKEND_ABI_MIN 1

enum hb_status {
    HB_OK = 0,
    HB_ERROR = 1,       /* API error: message in last_error() */
    HB_UNSUPPORTED = 2, /* cannot run this here (kernel uses an unmodelled feature,
                           width not offered...): reason in last_error(), verdict SKIP */
    HB_NO_DEVICE = 3,   /* runtime present but no usable device */
};

/* A warp/subgroup width the device can execute kernels at. Some drivers fix the
 * width at process start (lavapipe reads LP_NATIVE_VECTOR_WIDTH), so a width may
 * name one environment assignment the core makes in a fresh child before open(). */
struct hb_width_option {
    int width;
    char env[64]; /* "NAME=VALUE" or "" */
};

#define HB_MAX_WIDTHS 8
struct hb_device_info {
    char name[128];   /* "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)" */
    char driver[128]; /* driver and runtime/toolkit versions, for baselines */
    int n_widths;
    struct hb_width_option widths[HB_MAX_WIDTHS];
    uint64_t global_mem_bytes;
    uint32_t shared_mem_per_block;
    double fp32_peak_tflops; /* vendor fp32 (non-tensor) peak, 0 when unknown: bench's "% of peak" */
};

/* A kernel parameter's kind, in the kernel's own order (manifest key `args`). I64 is an
 * integer from hb_args.ints passed as 8 bytes (`n:u64` for a size_t parameter); a backend that
 * does not know a kind must refuse the launch, never guess. */
enum hb_param_kind { HB_PARAM_BUF = 1, HB_PARAM_I32 = 2, HB_PARAM_F32 = 3, HB_PARAM_I64 = 4 };
#define HB_MAX_PARAMS 16

/* What the core asks a backend to load: one entry of a kernel manifest. */
struct hb_kernel_spec {
    const char *name;        /* "sgemm_tiled" */
    const char *lang;        /* "glsl", "spirv", "cuda", "hip" */
    const char *source_path; /* absolute path of the source (or binary) file */
    const char *entry;       /* entry point / function name; C++ template-ids as written
                                ("gemm<128, 128, 8, 8, 8>") where the language has them */
    const char *build_dir;   /* absolute path of the build directory (compiled artifacts) */
    unsigned block[3];       /* threads per block / local workgroup size */
    /* ABI 2 */
    int n_params;                        /* the kernel's parameters, in order */
    unsigned char params[HB_MAX_PARAMS]; /* enum hb_param_kind */
    unsigned shared_bytes;               /* dynamic shared memory per block (extern __shared__) */
    int user;                            /* a user's source, not a shipped one: built without the project's warning
                                            flags, and a source that does not build is an error (a feature a backend
                                            does not model is a skip that names it) */
    /* ABI 7: what the source's build is given besides it (manifest keys includes and defines),
     * before the backend's own flags, as -I and -D words: absolute include folders in search
     * order, and NAME or NAME=VALUE. A source with either is always built at run time. */
    int n_includes;
    const char *const *includes;
    int n_defines;
    const char *const *defines;
    /* ABI 9: the entries of every kernel of the run's manifests with this source, language,
     * includes, defines and user flag, this one's included, each once, in one order that is
     * the same for all of them (manifest order); 0 and NULL when the core does not say. */
    int n_siblings;
    const char *const *siblings;
};

/* Without a declared list, arguments follow the op's ABI: buffers first, then 32-bit integers.
 *   sgemm:  A, B, C;       M, N, K           (row-major, C = A*B)
 *   reduce: x, partials;   n                 (block b sums its chunk of x into partials[b])
 * With one, bufs stay in the op's order (A, B, C) and ints and floats hold the declared
 * integers and floats in the kernel's order; params says which goes where.
 * A buffer argument is a byte offset into an allocation: the core surrounds every
 * argument with guard bands, so offsets are multiples of 4096. */
typedef struct hb_ctx hb_ctx;
typedef struct hb_buf hb_buf;
typedef struct hb_kern hb_kern;

#define HB_MAX_BUF_ARGS 8
#define HB_MAX_INT_ARGS 8
#define HB_MAX_FLOAT_ARGS 8
struct hb_args {
    int n_bufs;
    hb_buf *bufs[HB_MAX_BUF_ARGS];
    size_t offsets[HB_MAX_BUF_ARGS];
    int n_ints;
    int32_t ints[HB_MAX_INT_ARGS];
    /* ABI 2 */
    size_t bytes[HB_MAX_BUF_ARGS]; /* each buffer's data bytes from its offset: the rest of the
                                      allocation is guard band */
    int n_floats;
    float floats[HB_MAX_FLOAT_ARGS];
    /* The kernel's parameters in its own order, each an index into bufs, ints or floats by
     * kind. Always filled by the core; an ABI 1 backend reads bufs then ints instead. */
    int n_params;
    struct hb_param {
        unsigned char kind; /* enum hb_param_kind */
        unsigned char index;
    } params[HB_MAX_PARAMS];
    /* ABI 5: the launch's number within its case, 0 for the first (the one judged against
     * the reference; later ones are the repeat check). Buffers of one size are reused from
     * case to case, so a backend cannot tell a new case from its allocations. */
    int repeat;
};

/* What the compiler and the occupancy calculator say of a loaded kernel at its block size,
 * for bench's columns (occupancy); -1 (0 for the doubles) where a
 * backend cannot tell. */
struct hb_kernel_info {
    int regs;             /* registers per thread */
    int shared_bytes;     /* shared memory per block (static, plus the spec's dynamic bytes) */
    int local_bytes;      /* local (spill) memory per thread */
    int blocks_per_sm;    /* resident blocks per SM or CU, from the occupancy calculator */
    double occupancy;     /* resident threads / the SM's maximum, 0..1 */
    double dram_peak_gbs; /* the device's DRAM bandwidth: the roofline of memory-bound kernels */
};

/* An out-of-bounds access a backend saw exactly (the emulator sees every access). */
struct hb_fault {
    long long count;   /* accesses of this kind outside their buffer's data; 0: none */
    int arg;           /* buffer argument index of the first one, -1 when it hit no argument */
    long long offset;  /* its byte offset from that argument's data start */
    unsigned block[3]; /* the block and thread that made it */
    unsigned thread[3];
};

/* One transfer of a batch (ABI 4): bytes between host and buf's offset. */
struct hb_transfer {
    hb_buf *buf;
    size_t offset;
    void *host; /* read by upload_many, written by download_many */
    size_t bytes;
};

struct hb_backend {
    int abi;           /* HB_BACKEND_ABI */
    const char *name;  /* "vulkan", "cuda", "hip", "sim" */
    const char *langs; /* kernel languages it runs, space separated: "cuda hip" */

    /* Devices this process sees. Returns the count (>= 0) or -1 with a message in err.
     * 0 devices is not an error. */
    int (*list_devices)(struct hb_device_info *out, int max, char *err, size_t errlen);

    /* Open device `device` to run kernels at `width` (one of its width options, whose env
     * the core has already set). Returns an hb_status; on failure err says why. */
    int (*open)(hb_ctx **ctx, int device, int width, char *err, size_t errlen);
    void (*close)(hb_ctx *ctx);
    const char *(*last_error)(hb_ctx *ctx);

    int (*alloc)(hb_ctx *ctx, size_t bytes, hb_buf **out);
    void (*release)(hb_ctx *ctx, hb_buf *buf);
    int (*upload)(hb_ctx *ctx, hb_buf *dst, size_t offset, const void *src, size_t bytes);
    int (*download)(hb_ctx *ctx, hb_buf *src, size_t offset, void *dst, size_t bytes);

    /* HB_UNSUPPORTED (with a reason) becomes a SKIP verdict, never a PASS. */
    int (*load)(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out);
    void (*unload)(hb_ctx *ctx, hb_kern *kern);

    /* Runs one launch to completion. If device_ms is not NULL it receives the device
     * time of the launch (events / timestamp queries / wall clock on the CPU). */
    int (*launch)(hb_ctx *ctx, hb_kern *kern, const unsigned grid[3], const struct hb_args *args, double *device_ms);

    /* Optional peers, NULL when the backend has none. vendor_sgemm is the vendor
     * library (cuBLAS, rocBLAS) in full fp32, run as a second oracle and the speed
     * yardstick; copy is a device-to-device copy, the bandwidth yardstick. */
    int (*vendor_sgemm)(hb_ctx *ctx, const struct hb_args *args, double *device_ms);
    const char *vendor_name; /* "cublas" */
    int (*copy)(hb_ctx *ctx, hb_buf *dst, size_t dst_off, hb_buf *src, size_t src_off, size_t bytes, double *device_ms);

    /* ABI 2 */
    /* The platform under the API when it is not the obvious one ("nvidia" for HIP on CUDA),
     * NULL otherwise: reports carry it so no one mistakes it for an AMD result. */
    const char *platform;
    /* Exact out-of-bounds reads and writes of the last launch, NULL where a backend cannot
     * see accesses (GPUs: guard bands and compute-sanitizer memcheck stand in). */
    int (*faults)(hb_ctx *ctx, struct hb_fault *reads, struct hb_fault *writes);
    /* Which binary a loaded kernel runs: its path, or its source with the compiler and flags
     * that built it, so a report never leaves in doubt what was tested. NULL: not said. */
    const char *(*kernel_origin)(hb_ctx *ctx, hb_kern *kern);
    /* Appended to ABI 2 (issue 15): the figures of a loaded kernel, NULL where a backend
     * has none (the emulator). Times nothing and launches nothing. */
    int (*kernel_info)(hb_ctx *ctx, hb_kern *kern, struct hb_kernel_info *out);

    /* ABI 3 */
    /* Host memory the device copies to and from directly (page-locked), for the core's
     * images of each buffer; NULL where a backend has none (the core uses malloc).
     * host_alloc returns NULL when it cannot; contents are undefined. */
    void *(*host_alloc)(hb_ctx *ctx, size_t bytes);
    void (*host_free)(hb_ctx *ctx, void *p);

    /* ABI 4 */
    /* n transfers in one go, as n upload or download calls would make them, where each call
     * is a queue submission and a wait (Vulkan through a staging buffer: about a millisecond
     * each on the H200). NULL: the core makes the calls. */
    int (*upload_many)(hb_ctx *ctx, const struct hb_transfer *t, int n);
    int (*download_many)(hb_ctx *ctx, const struct hb_transfer *t, int n);

    /* ABI 6: HB_CAP_* bits. */
    unsigned caps;

    /* ABI 8 */
    /* Everything load does before the kernel's own code can run in this process (its build,
     * and each check that makes it HB_UNSUPPORTED), for a backend with HB_CAP_IN_PROCESS:
     * HB_OK when load may follow, else what load would return. The core believes a SKIP from
     * such a backend only when it comes from here, never from load, after which the
     * kernel's static constructors have run and could claim one. NULL: every SKIP of its
     * load is an ERROR. */
    int (*prepare)(hb_ctx *ctx, const struct hb_kernel_spec *spec);
};

/* Kernels are native code run in the worker's own process on the host CPU (the emulator):
 * no device context to budget for and no cap on workers per device; a worker is not reused
 * for another group, since the emulator's random schedules count launches per process. */
#define HB_CAP_IN_PROCESS 1u
/* Kernels see raw device pointers (CUDA, HIP), so a larger allocation than asked for is
 * invisible to them and buffers may be pooled by size class. */
#define HB_CAP_RAW_POINTERS 2u

/* Every backend shared object exports exactly this symbol. */
const struct hb_backend *hb_backend_entry(void);

#endif
