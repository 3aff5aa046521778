/* SPDX-License-Identifier: MIT */
/* sim_abi.h: the contract between the emulator runtime (C, sim_sched.c) and the device
 * prelude compiled into every kernel .so (C++, sim_prelude.h). Kept C-compatible and tiny:
 * a lane finds its descriptor from its stack pointer alone (masked down to its region's base,
 * then SIM_DESC_AT's colour step, taken from that base's address: ABI 4), and reaches the
 * runtime only through the function table in it, so kernel .so's link against nothing of ours. */
#ifndef SIM_ABI_H
#define SIM_ABI_H

#include <stdint.h>

/* 2: access checking (bounds, shared range, fault hook), block info in the descriptor,
 * wrapped entries taking struct sim_arg[], 64-bit-mask CUDA builds (the wave64 port check).
 * 3: the runtime's per-lane state inside the descriptor's head (sim_lane_pub.runtime).
 * 4: descriptors spread over the region's first 16 KiB (SIM_DESC_AREA), not its first page. */
#define SIM_ABI_VERSION 4

/* Every lane runs on its own region of this many bytes, aligned to its size; the lane's
 * descriptor sits in the region's first SIM_DESC_AREA bytes, then a guard page, then the
 * stack (grows down). 128 KiB leaves ample room for sgemm_optimized's register arrays even
 * unoptimised. */
#define SIM_REGION_SHIFT 17
#define SIM_REGION_BYTES (1u << SIM_REGION_SHIFT)

/* Regions aligned to their size would put every lane's descriptor in the same cache sets; it
 * is shifted by a colour taken from the region's address, 128 steps of 128 bytes, so that a
 * 256-lane block's descriptors share an L2 set two by two. With 32 steps (one page) they
 * filled an 8-way set eight by eight and were evicted between turns: in a shuffled order, which
 * the hardware prefetchers cannot follow, sgemm_tiled's random repeats waited on them. */
#define SIM_DESC_BYTES 128u
#define SIM_DESC_COLOURS 128u
#define SIM_DESC_AREA (SIM_DESC_COLOURS * SIM_DESC_BYTES)
#define SIM_COLOUR(base) ((((uintptr_t)(base)) >> SIM_REGION_SHIFT) & (SIM_DESC_COLOURS - 1))
#define SIM_DESC_AT(base) ((uintptr_t)(base) + SIM_COLOUR(base) * SIM_DESC_BYTES)

/* Values of the kernel .so's exported sim_kernel_dialect: the width of its lane masks.
 * A CUDA source built for the wave64 port check exports 64, as its hipified port would. */
#define SIM_DIALECT_CUDA 32
#define SIM_DIALECT_HIP 64

struct sim_dim3 {
    unsigned x, y, z;
#ifdef __cplusplus
    /* dim3's constructors, for host code building launch configurations: `dim3 grid(n / 16)`.
     * The default one leaves it trivial (host code never runs, so its values never matter). */
    sim_dim3() = default;
    constexpr sim_dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
#endif
};

enum sim_op {
    SIM_OP_SHFL_IDX,
    SIM_OP_SHFL_UP,
    SIM_OP_SHFL_DOWN,
    SIM_OP_SHFL_XOR,
    SIM_OP_BALLOT,
    SIM_OP_ANY,
    SIM_OP_ALL,
    SIM_OP_SYNCWARP,
    SIM_OP_ACTIVEMASK,
    SIM_OP_VOLATILE, /* a volatile access: warp lanes advance one such access at a time */
};

struct sim_block_info {
    struct sim_dim3 block_idx, block_dim, grid_dim;
    int width;
};

/* [lo, hi): memory kernel code may touch. */
struct sim_range {
    uintptr_t lo, hi;
};

/* The launch's legitimate ranges besides the lane's own region and the block's shared
 * memory: each buffer argument's data, the kernel object's image. */
#define SIM_MAX_RANGES 12
struct sim_bounds {
    int n;
    struct sim_range r[SIM_MAX_RANGES];
};

/* Flags of a checked access (sim_rt.fault). */
#define SIM_ACC_WRITE 1
#define SIM_ACC_ALIGNED 2 /* the compiler assumed natural alignment: misaligned is a fault */

struct sim_lane_pub;
struct sim_rt {
    void (*barrier)(struct sim_lane_pub *self);
    /* Blocks until the warp's collective completes; returns this lane's result
     * (shuffled value bits, or a lane mask, or 0/1). */
    uint64_t (*collective)(struct sim_lane_pub *self, int op, uint64_t value, int arg, int width);
    /* An access outside every legitimate range: recorded; returns when the access may go
     * ahead (it lands in memory the emulator owns), else stops the block for good. */
    void (*fault)(struct sim_lane_pub *self, uintptr_t addr, unsigned size, int flags);
};

/* The public head of a lane descriptor. */
struct sim_lane_pub {
    const struct sim_rt *rt;
    /* The runtime's own per-lane state (sim_lanes.h), never read by kernel code: beside rt, so
     * that a sync point, which reads both, touches one cache line of the descriptor. */
    uint64_t runtime[3];
    const struct sim_bounds *bounds;
    struct sim_range shared; /* this worker's block shared memory: the kernel's TLS block */
    struct sim_block_info blk;
    struct sim_dim3 tid;
};

/* One kernel argument of a wrapped entry (sim_wrap.cc), in the kernel's own order. */
enum sim_arg_kind { SIM_ARG_PTR = 1, SIM_ARG_I32 = 2, SIM_ARG_F32 = 3 };
struct sim_arg {
    union {
        void *p;
        int32_t i;
        float f;
    } u;
    int kind;
};

#endif
