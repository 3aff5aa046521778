/* SPDX-License-Identifier: MIT */
/* sim_cg.h: cooperative groups (cooperative_groups.h) as CUDA 12/13 and HIP have them within a
 * block: the thread block (also from a cg::block_tile_memory), its tiles (tiled_partition<N>
 * for N a power of two up to 1024, tiled_partition(g, n) at run time), sync, thread_rank,
 * num_threads, meta_group_rank and meta_group_size, shfl*, ballot, any and all within a warp,
 * and cg::reduce with plus, less, greater and the bit operators. No grid or multi-grid groups,
 * coalesced_threads, labeled partitions or scans.
 *
 * A tile no wider than the warp is a slice of it: collectives are the warp's. A wider one
 * (thread_block_tile<64> on 32 lanes, <128> and up anywhere) spans warps, as CUDA's multi-warp
 * tiles: its sync is the block's barrier, so every tile must sync at the same points (true of
 * reductions; a kernel whose tiles sync apart is not modelled, and a race between tiles that
 * only the barrier orders is not seen), and cg::reduce goes through a shared scratch array as
 * CUDA's goes through block_tile_memory. shfl and ballot on it stop the kernel, named on stderr:
 * CUDA has none.
 * Template parameters have reserved names: users' macros (N, T...) are defined by now. */
#ifndef SIM_CG_H
#define SIM_CG_H

#include <cstdio>

#include "sim_prelude.h"

namespace cooperative_groups
{

static inline unsigned sim_cg_rank(void) { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static inline unsigned sim_cg_block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }

/* The block's scratch for collectives of tiles wider than the warp: one 8-byte slot per thread
 * of the largest block. Shared memory, as CUDA's is, so it counts in the kernel's. */
static inline unsigned long long *sim_cg_scratch(void)
{
    static thread_local unsigned long long slots[1024];
    return slots;
}

/* What CUDA reserves for multi-warp tiles on devices that need it; here only its bytes. */
template <unsigned _Max = 1024>
struct block_tile_memory {
    static_assert(_Max > 0 && _Max <= 1024, "sim: block_tile_memory<MaxBlockSize> takes 1 to 1024 threads");
    unsigned long long __sim_reserved[(_Max + 31) / 32];
};

/* The tile's barrier: the warp's within it, else the block's (the header says why). */
static inline void sim_cg_tile_sync(unsigned n)
{
    if (n <= (unsigned)warpSize)
        __syncwarp();
    else
        __syncthreads();
}

/* A group of the block's threads: a tile whose size is known only at run time (a power of two
 * up to the block), and the base of the thread block and the fixed-size tiles, as in CUDA and
 * HIP, so that either passes as a `thread_group`. */
class thread_group
{
  protected:
    unsigned n_;

  public:
    explicit thread_group(unsigned n) : n_(n) {}
    void sync() const { sim_cg_tile_sync(n_); }
    unsigned thread_rank() const { return sim_cg_rank() % n_; }
    unsigned size() const { return n_; }
    unsigned num_threads() const { return n_; }
    unsigned meta_group_rank() const { return sim_cg_rank() / n_; }
    unsigned meta_group_size() const { return (sim_cg_block_size() + n_ - 1) / n_; }
};

class thread_block : public thread_group
{
  public:
    thread_block() : thread_group(sim_cg_block_size()) {}
    template <unsigned _Max>
    explicit thread_block(block_tile_memory<_Max> &) : thread_block()
    {
    }
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const { return sim_cg_rank(); }
    unsigned size() const { return sim_cg_block_size(); }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
static inline thread_block this_thread_block(void) { return thread_block(); }
template <unsigned _Max>
static inline thread_block this_thread_block(block_tile_memory<_Max> &m)
{
    return thread_block(m);
}

/* A tile of N consecutive threads of the block. */
template <unsigned _Np>
class thread_block_tile : public thread_group
{
    static_assert(_Np > 0 && _Np <= 1024 && (_Np & (_Np - 1)) == 0,
                  "sim: tiled_partition<N> needs a power of two up to 1024");
    /* Lane collectives exist only where the tile is one warp's slice; CUDA has none wider. The
     * kernel stops, named on stderr first (the crash row shows it): a wave64 build at 32. Not
     * instrumented: reading libc's stderr is no access of the kernel's. */
    __attribute__((no_sanitize_thread)) static void sim_within_warp(const char *what)
    {
        if (_Np <= (unsigned)warpSize)
            return;
        std::fprintf(stderr, "sim: thread_block_tile<%u>::%s on %d-lane warps: no such collective, the kernel stops\n",
                     _Np, what, warpSize);
        __builtin_trap();
    }

  public:
    thread_block_tile() : thread_group(_Np) {}
    unsigned thread_rank() const { return sim_cg_rank() & (_Np - 1); }
    unsigned size() const { return _Np; }
    unsigned num_threads() const { return _Np; }
    template <typename _Tp>
    _Tp shfl(_Tp v, int src) const
    {
        sim_within_warp("shfl");
        return __shfl_sync(~0u, v, src, _Np);
    }
    template <typename _Tp>
    _Tp shfl_down(_Tp v, unsigned d) const
    {
        sim_within_warp("shfl_down");
        return __shfl_down_sync(~0u, v, d, _Np);
    }
    template <typename _Tp>
    _Tp shfl_up(_Tp v, unsigned d) const
    {
        sim_within_warp("shfl_up");
        return __shfl_up_sync(~0u, v, d, _Np);
    }
    template <typename _Tp>
    _Tp shfl_xor(_Tp v, int m) const
    {
        sim_within_warp("shfl_xor");
        return __shfl_xor_sync(~0u, v, m, _Np);
    }
    /* This tile's lanes of the warp's ballot, from bit 0. */
    unsigned long long ballot(int pred) const
    {
        sim_within_warp("ballot");
        unsigned long long b = __ballot_sync(~0u, pred);
        unsigned first = sim_cg_rank() % (unsigned)warpSize & ~(_Np - 1);
        return (b >> first) & (_Np >= 64 ? ~0ull : (1ull << _Np) - 1);
    }
    int any(int pred) const { return ballot(pred) != 0; }
    int all(int pred) const { return ballot(pred) == (_Np >= 64 ? ~0ull : (1ull << _Np) - 1); }
};

template <unsigned _Np, typename _Pp>
static inline thread_block_tile<_Np> tiled_partition(const _Pp &)
{
    return thread_block_tile<_Np>();
}
static inline thread_group tiled_partition(const thread_block &, unsigned n) { return thread_group(n); }

/* cg::sync(g) for every group. */
template <typename _Gp>
static inline void sync(const _Gp &g)
{
    g.sync();
}

template <typename _Tp>
struct plus {
    _Tp operator()(_Tp a, _Tp b) const { return a + b; }
};
template <typename _Tp>
struct less {
    _Tp operator()(_Tp a, _Tp b) const { return b < a ? b : a; }
};
template <typename _Tp>
struct greater {
    _Tp operator()(_Tp a, _Tp b) const { return a < b ? b : a; }
};
template <typename _Tp>
struct bit_and {
    _Tp operator()(_Tp a, _Tp b) const { return a & b; }
};
template <typename _Tp>
struct bit_or {
    _Tp operator()(_Tp a, _Tp b) const { return a | b; }
};
template <typename _Tp>
struct bit_xor {
    _Tp operator()(_Tp a, _Tp b) const { return a ^ b; }
};

/* A tile wider than the warp: each thread leaves its value in the scratch, and after the
 * barrier every thread of the tile folds the tile's values pairwise, in one fixed order. */
template <unsigned _Np, typename _Tp, typename _Op>
static inline _Tp sim_cg_reduce_wide(_Tp v, _Op op)
{
    unsigned long long *slot = sim_cg_scratch();
    unsigned rank = sim_cg_rank(), first = rank & ~(_Np - 1);
    slot[rank] = sim_bits(v);
    __syncthreads();
    _Tp part[32]; /* folds of up to 32 values each, then a tree over them */
    unsigned chunk = _Np < 32 ? _Np : _Np / 32, parts = _Np / chunk;
    for (unsigned p = 0; p < parts; p++) {
        part[p] = sim_from_bits<_Tp>(slot[first + p * chunk]);
        for (unsigned i = 1; i < chunk; i++)
            part[p] = op(part[p], sim_from_bits<_Tp>(slot[first + p * chunk + i]));
    }
    for (unsigned w = 1; w < parts; w *= 2)
        for (unsigned p = 0; p + w < parts; p += 2 * w)
            part[p] = op(part[p], part[p + w]);
    __syncthreads(); /* the scratch is free again */
    return part[0];
}

/* Every thread of the tile gets op over the tile's values: a butterfly within a warp. */
template <unsigned _Np, typename _Tp, typename _Op>
static inline _Tp reduce(const thread_block_tile<_Np> &g, _Tp v, _Op op)
{
    if (_Np > (unsigned)warpSize)
        return sim_cg_reduce_wide<_Np>(v, op);
    for (unsigned m = _Np / 2; m > 0; m /= 2)
        v = op(v, g.shfl_xor(v, (int)m));
    return v;
}

} // namespace cooperative_groups

#endif
