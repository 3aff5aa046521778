/* sim_prelude.h: the device side of CUDA and HIP, for compiling kernel sources unchanged
 * as host C++ for the CPU SIMT emulator (reached through the cuda_runtime.h and
 * hip/hip_runtime.h shims in include/). It models only the features our kernels may use;
 * anything else fails to compile, which the build turns into a clean SKIP. Static
 * __shared__ arrays become thread_local: a worker runs one block at a time, so per worker
 * means per block; the runtime fills them with a junk pattern before each block. */
#ifndef SIM_PRELUDE_H
#define SIM_PRELUDE_H

#if !defined(SIM_DIALECT)
#error "include cuda_runtime.h or hip/hip_runtime.h, not sim_prelude.h"
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

extern "C" {
#include "sim_abi.h"
}

/* The runtime checks these after dlopen: mask width of the dialect, and the ABI. */
extern "C" __attribute__((visibility("default"))) const int sim_kernel_dialect = SIM_DIALECT;
extern "C" __attribute__((visibility("default"))) const int sim_kernel_abi = SIM_ABI_VERSION;

/* The runtime calls this on each worker to make the kernel's thread-local block (its static
 * shared memory) exist there, then finds it with dlinfo and poisons it before every block. */
static thread_local char sim_tls_probe;
extern "C" __attribute__((visibility("default"))) void *sim_kernel_tls_touch(void)
{
    return &sim_tls_probe;
}

#define __global__ __attribute__((visibility("default")))
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static thread_local

typedef struct sim_dim3 dim3;
typedef struct sim_dim3 uint3;

/* A lane's descriptor lives near the base of its stack region. */
static inline __attribute__((always_inline)) sim_lane_pub *sim_self(void)
{
    uintptr_t sp;
#if defined(__x86_64__)
    __asm__("mov %%rsp, %0" : "=r"(sp));
#else
    sp = (uintptr_t)__builtin_frame_address(0);
#endif
    return (sim_lane_pub *)SIM_DESC_AT(sp & ~(uintptr_t)(SIM_REGION_BYTES - 1));
}

#define threadIdx (sim_self()->tid)
#define blockIdx (sim_self()->blk->block_idx)
#define blockDim (sim_self()->blk->block_dim)
#define gridDim (sim_self()->blk->grid_dim)
#define warpSize (sim_self()->blk->width)

static inline void __syncthreads(void)
{
    sim_lane_pub *s = sim_self();
    s->rt->barrier(s);
}

template <typename T> static inline uint64_t sim_bits(T v)
{
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "sim: shuffled type must be a scalar of at most 8 bytes");
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof v);
    return u;
}

template <typename T> static inline T sim_from_bits(uint64_t u)
{
    T v;
    std::memcpy(&v, &u, sizeof v);
    return v;
}

static inline uint64_t sim_coll(int op, uint64_t value, int arg, int width)
{
    sim_lane_pub *s = sim_self();
    return s->rt->collective(s, op, value, arg, width);
}

template <typename T> static inline T sim_shfl(int op, T var, int arg, int width)
{
    return sim_from_bits<T>(sim_coll(op, sim_bits(var), arg, width));
}

#if SIM_DIALECT == SIM_DIALECT_HIP
typedef unsigned long long sim_mask_t;
#else
typedef unsigned int sim_mask_t;
#endif

/* The _sync forms: the mask's lanes are the ones that arrive; its type is the caller's. */
template <typename M, typename T> static inline T __shfl_sync(M, T var, int src, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_IDX, var, src, width);
}
template <typename M, typename T>
static inline T __shfl_up_sync(M, T var, unsigned delta, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_UP, var, (int)delta, width);
}
template <typename M, typename T>
static inline T __shfl_down_sync(M, T var, unsigned delta, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_DOWN, var, (int)delta, width);
}
template <typename M, typename T>
static inline T __shfl_xor_sync(M, T var, int lane_mask, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_XOR, var, lane_mask, width);
}
template <typename M> static inline sim_mask_t __ballot_sync(M, int pred)
{
    return (sim_mask_t)sim_coll(SIM_OP_BALLOT, pred != 0, 0, 0);
}
template <typename M> static inline int __any_sync(M, int pred)
{
    return (int)sim_coll(SIM_OP_ANY, pred != 0, 0, 0);
}
template <typename M> static inline int __all_sync(M, int pred)
{
    return (int)sim_coll(SIM_OP_ALL, pred != 0, 0, 0);
}
static inline void __syncwarp(sim_mask_t = (sim_mask_t)-1)
{
    sim_coll(SIM_OP_SYNCWARP, 0, 0, 0);
}
static inline sim_mask_t __activemask(void)
{
    return (sim_mask_t)sim_coll(SIM_OP_ACTIVEMASK, 0, 0, 0);
}

#if SIM_DIALECT == SIM_DIALECT_HIP
/* HIP's unsuffixed warp functions: 64-bit ballot, int predicates. */
template <typename T> static inline T __shfl(T var, int src, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_IDX, var, src, width);
}
template <typename T> static inline T __shfl_up(T var, unsigned delta, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_UP, var, (int)delta, width);
}
template <typename T> static inline T __shfl_down(T var, unsigned delta, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_DOWN, var, (int)delta, width);
}
template <typename T> static inline T __shfl_xor(T var, int lane_mask, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_XOR, var, lane_mask, width);
}
static inline unsigned long long __ballot(int pred)
{
    return sim_coll(SIM_OP_BALLOT, pred != 0, 0, 0);
}
static inline int __any(int pred)
{
    return (int)sim_coll(SIM_OP_ANY, pred != 0, 0, 0);
}
static inline int __all(int pred)
{
    return (int)sim_coll(SIM_OP_ALL, pred != 0, 0, 0);
}
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)
#endif

static inline int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
static inline int __popcll(unsigned long long x)
{
    return __builtin_popcountll(x);
}
static inline int __ffs(int x)
{
    return __builtin_ffs(x);
}
static inline int __ffsll(long long x)
{
    return __builtin_ffsll(x);
}

/* Implicit warp-synchronous code (a `volatile` shared-memory tree with no __syncwarp) is
 * right on GPUs only because a warp's lanes run in lockstep. Kernels are compiled with GCC's
 * ThreadSanitizer instrumentation but no TSan runtime: these definitions stand in for it.
 * Each volatile access becomes a warp sync point, so a warp's lanes make their volatile
 * accesses in lockstep, as on hardware (the runtime drops that lockstep for CUDA under the
 * random schedule, as Volta's independent thread scheduling may); other accesses are no-ops. */
#if defined(__SANITIZE_THREAD__)
#define SIM_NO_TSAN __attribute__((no_sanitize_thread, noinline))
#define SIM_HOOK SIM_NO_TSAN __attribute__((visibility("hidden")))
#define SIM_TSAN_PLAIN(kind, n) extern "C" SIM_HOOK void __tsan_##kind##n(void *) {}
#define SIM_TSAN_VOLATILE(kind, n)                                                         \
    extern "C" SIM_HOOK void __tsan_volatile_##kind##n(void *)                             \
    {                                                                                        \
        sim_coll(SIM_OP_VOLATILE, 0, 0, 0);                                                  \
    }
#define SIM_TSAN_SIZES(m, kind) m(kind, 1) m(kind, 2) m(kind, 4) m(kind, 8) m(kind, 16)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, read)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, write)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, unaligned_read)
SIM_TSAN_SIZES(SIM_TSAN_PLAIN, unaligned_write)
SIM_TSAN_SIZES(SIM_TSAN_VOLATILE, read)
SIM_TSAN_SIZES(SIM_TSAN_VOLATILE, write)
extern "C" SIM_HOOK void __tsan_init(void) {}
extern "C" SIM_HOOK void __tsan_read_range(void *, unsigned long) {}
extern "C" SIM_HOOK void __tsan_write_range(void *, unsigned long) {}
#else
#define SIM_NO_TSAN __attribute__((noinline))
#endif

/* Blocks run on several workers, so global atomics must be real ones (and out of reach
 * of the instrumentation above, which would otherwise want TSan's atomic hooks). */
SIM_NO_TSAN static inline float sim_atomic_add_f32(float *p, float v)
{
    uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), upd;
    do {
        float f;
        std::memcpy(&f, &old, sizeof f);
        f += v;
        std::memcpy(&upd, &f, sizeof f);
    } while (!__atomic_compare_exchange_n((uint32_t *)p, &old, upd, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    float f;
    std::memcpy(&f, &old, sizeof f);
    return f;
}
SIM_NO_TSAN static inline int sim_atomic_add_i32(int *p, int v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
SIM_NO_TSAN static inline unsigned sim_atomic_add_u32(unsigned *p, unsigned v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
static inline float atomicAdd(float *p, float v)
{
    return sim_atomic_add_f32(p, v);
}
static inline int atomicAdd(int *p, int v)
{
    return sim_atomic_add_i32(p, v);
}
static inline unsigned atomicAdd(unsigned *p, unsigned v)
{
    return sim_atomic_add_u32(p, v);
}

/* CUDA's float intrinsics, the fast ones computed exactly (their tolerances allow it).
 * __expf and __logf are not offered: glibc's math.h already owns those names. */
static inline float rsqrtf(float x)
{
    return 1.0f / std::sqrt(x);
}
static inline float __fdividef(float a, float b)
{
    return a / b;
}
static inline float __fmaf_rn(float a, float b, float c)
{
    return std::fma(a, b, c);
}
static inline float __saturatef(float x)
{
    return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
}

/* CUDA's min/max accept mixed operand types and use the usual arithmetic conversions. */
template <typename A, typename B>
static inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)b < (C)a ? (C)b : (C)a;
}
template <typename A, typename B>
static inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)b : (C)a;
}

#endif
