/* sim_abi.h: the contract between the emulator runtime (C, sim_sched.c) and the device
 * prelude compiled into every kernel .so (C++, sim_prelude.h). Kept C-compatible and tiny:
 * a lane finds its descriptor by masking its stack pointer, and reaches the runtime only
 * through the function table in it, so kernel .so's link against nothing of ours. */
#ifndef SIM_ABI_H
#define SIM_ABI_H

#include <stdint.h>

#define SIM_ABI_VERSION 1

/* Every lane runs on its own region of this many bytes, aligned to its size; the lane's
 * descriptor sits at the region base, then a guard page, then the stack (grows down).
 * 128 KiB leaves ample room for sgemm_optimized's register arrays even unoptimised. */
#define SIM_REGION_BYTES (128u * 1024u)

/* Regions aligned to their size would put every lane's descriptor and stack top in the
 * same cache sets; both are shifted by a colour taken from the region's address. */
#define SIM_COLOUR(base) ((((uintptr_t)(base)) / SIM_REGION_BYTES) & 63u)
#define SIM_DESC_AT(base) ((uintptr_t)(base) + SIM_COLOUR(base) * 64u)

/* Values of the kernel .so's exported sim_kernel_dialect: the width of its lane masks. */
#define SIM_DIALECT_CUDA 32
#define SIM_DIALECT_HIP 64

struct sim_dim3 {
    unsigned x, y, z;
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

struct sim_lane_pub;
struct sim_rt {
    void (*barrier)(struct sim_lane_pub *self);
    /* Blocks until the warp's collective completes; returns this lane's result
     * (shuffled value bits, or a lane mask, or 0/1). */
    uint64_t (*collective)(struct sim_lane_pub *self, int op, uint64_t value, int arg, int width);
};

/* The public head of a lane descriptor (the runtime's private part follows it). */
struct sim_lane_pub {
    const struct sim_rt *rt;
    const struct sim_block_info *blk;
    struct sim_dim3 tid;
};

#endif
