/* SPDX-License-Identifier: MIT */
/* sim_prelude.h: the device side of CUDA and HIP, for compiling kernel sources unchanged as
 * host C++ for the CPU SIMT emulator (through the cuda_runtime.h and hip/hip_runtime.h shims
 * in include/, which run-time builds include implicitly as nvcc and hipcc do). Device code
 * only, no host API; a missing feature fails to compile and sim_why.c names it. __shared__
 * becomes thread_local (a worker runs one block at a time), poisoned before each block. */
#ifndef SIM_PRELUDE_H
#define SIM_PRELUDE_H

#if !defined(SIM_DIALECT)
#error "include cuda_runtime.h or hip/hip_runtime.h, not sim_prelude.h"
#endif

#include <sys/types.h> /* uint, which nvcc's host headers also offer */

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <type_traits>
#include <utility>

extern "C" {
#include "sim_abi.h"
}

/* The wave64 port check (SIM_PORT_WAVE64: a CUDA source run at width 64) models the source as
 * hipify ports it: the _sync intrinsics keep their meaning and drop the mask (HIP's __shfl*,
 * __ballot, __any, __all, width defaulting to warpSize), warpSize is 64, __ballot_sync and
 * __activemask return 64-bit masks (a kernel that keeps one in `unsigned` truncates it, as the
 * port would), __popc and __ffs stay 32-bit, __syncwarp syncs the wavefront, and volatile
 * accesses keep wavefront lockstep under every schedule, as AMD hardware does. */
#if SIM_DIALECT == SIM_DIALECT_HIP || defined(SIM_PORT_WAVE64)
typedef unsigned long long sim_mask_t;
#define SIM_MASK_BITS SIM_DIALECT_HIP
#else
typedef unsigned int sim_mask_t;
#define SIM_MASK_BITS SIM_DIALECT_CUDA
#endif

/* The runtime checks these after dlopen: mask width of the build, and the ABI. */
extern "C" __attribute__((visibility("default"))) const int sim_kernel_dialect = SIM_MASK_BITS;
extern "C" __attribute__((visibility("default"))) const int sim_kernel_abi = SIM_ABI_VERSION;
/* Which compiler built the object, for the report's line on the binary that ran. */
#if defined(__clang__)
extern "C" __attribute__((visibility("default"))) const char sim_kernel_compiler[] = "clang " __clang_version__;
#else
extern "C" __attribute__((visibility("default"))) const char sim_kernel_compiler[] = "g++ " __VERSION__;
#endif

/* The runtime calls this on each worker to make the kernel's thread-local block (its shared
 * memory) exist there, then finds it with dlinfo and poisons it before every block. */
static thread_local char sim_tls_probe;
extern "C" __attribute__((visibility("default"))) void *sim_kernel_tls_touch(void) { return &sim_tls_probe; }

#if SIM_DIALECT == SIM_DIALECT_HIP
#define __HIPCC__ 1
#else
#define __CUDACC__ 1
#endif
#define __global__ __attribute__((visibility("default")))
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
/* __noinline__ is no macro: libstdc++ writes __attribute__((__noinline__)) itself, so
 * sim_rewrite.c makes it the attribute only outside attributes. */
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/* thread_local alone: static at block scope, and `extern __shared__ T s[]` (dynamic shared
 * memory) stays a declaration, which the backend defines at link time (sim_load.c). */
#define __shared__ thread_local

typedef struct sim_dim3 dim3;
typedef struct sim_dim3 uint3;

/* The stack pointer: a lane's descriptor lives near the base of its stack region, and the
 * access hooks (sim_hooks.h) tell the lane's own stack by it. */
static inline __attribute__((always_inline, no_sanitize_thread)) uintptr_t sim_sp(void)
{
    uintptr_t sp;
#if defined(__x86_64__)
    __asm__("mov %%rsp, %0" : "=r"(sp));
#else
    sp = (uintptr_t)__builtin_frame_address(0);
#endif
    return sp;
}

static inline __attribute__((always_inline)) sim_lane_pub *sim_self(void)
{
    return (sim_lane_pub *)SIM_DESC_AT(sim_sp() & ~(uintptr_t)(SIM_REGION_BYTES - 1));
}

#define threadIdx (sim_self()->tid)
#define blockIdx (sim_self()->blk.block_idx)
#define blockDim (sim_self()->blk.block_dim)
#define gridDim (sim_self()->blk.grid_dim)
#define warpSize (sim_self()->blk.width)

/* Calls into the runtime read its function table, which no kernel range covers: these are
 * never instrumented. */
static inline __attribute__((no_sanitize_thread, noinline)) void __syncthreads(void)
{
    sim_lane_pub *s = sim_self();
    s->rt->barrier(s);
}

static inline __attribute__((no_sanitize_thread, noinline)) uint64_t sim_coll(int op, uint64_t value, int arg,
                                                                              int width)
{
    sim_lane_pub *s = sim_self();
    return s->rt->collective(s, op, value, arg, width);
}

#include "sim_hooks.h"

template <typename T>
static inline uint64_t sim_bits(T v)
{
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "sim: shuffled type must be a scalar of at most 8 bytes");
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof v);
    return u;
}

template <typename T>
static inline T sim_from_bits(uint64_t u)
{
    T v;
    std::memcpy(&v, &u, sizeof v);
    return v;
}

template <typename T>
static inline T sim_shfl(int op, T var, int arg, int width)
{
    return sim_from_bits<T>(sim_coll(op, sim_bits(var), arg, width));
}

/* The _sync forms: the mask's lanes are the ones that arrive; its type is the caller's. */
template <typename M, typename T>
static inline T __shfl_sync(M, T var, int src, int width = warpSize)
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
template <typename M>
static inline sim_mask_t __ballot_sync(M, int pred)
{
    return (sim_mask_t)sim_coll(SIM_OP_BALLOT, pred != 0, 0, 0);
}
template <typename M>
static inline int __any_sync(M, int pred)
{
    return (int)sim_coll(SIM_OP_ANY, pred != 0, 0, 0);
}
template <typename M>
static inline int __all_sync(M, int pred)
{
    return (int)sim_coll(SIM_OP_ALL, pred != 0, 0, 0);
}
static inline void __syncwarp(sim_mask_t = (sim_mask_t)-1) { sim_coll(SIM_OP_SYNCWARP, 0, 0, 0); }
static inline sim_mask_t __activemask(void) { return (sim_mask_t)sim_coll(SIM_OP_ACTIVEMASK, 0, 0, 0); }

#if SIM_DIALECT == SIM_DIALECT_HIP
/* HIP's unsuffixed warp functions: 64-bit ballot, int predicates. */
template <typename T>
static inline T __shfl(T var, int src, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_IDX, var, src, width);
}
template <typename T>
static inline T __shfl_up(T var, unsigned delta, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_UP, var, (int)delta, width);
}
template <typename T>
static inline T __shfl_down(T var, unsigned delta, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_DOWN, var, (int)delta, width);
}
template <typename T>
static inline T __shfl_xor(T var, int lane_mask, int width = warpSize)
{
    return sim_shfl(SIM_OP_SHFL_XOR, var, lane_mask, width);
}
static inline unsigned long long __ballot(int pred) { return sim_coll(SIM_OP_BALLOT, pred != 0, 0, 0); }
static inline int __any(int pred) { return (int)sim_coll(SIM_OP_ANY, pred != 0, 0, 0); }
static inline int __all(int pred) { return (int)sim_coll(SIM_OP_ALL, pred != 0, 0, 0); }
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

static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline unsigned __brev(unsigned x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}

#include "sim_atomic.h"
#include "sim_math.h"
#include "sim_vec.h"

#endif
