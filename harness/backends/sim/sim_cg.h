/* SPDX-License-Identifier: MIT */
/* sim_cg.h: the basics of cooperative groups (cooperative_groups.h): the thread block, its
 * tiles (tiled_partition<N>: sync, thread_rank, shfl*, ballot, any, all; tiled_partition(b, n):
 * sync, thread_rank) and cg::reduce with plus, less, greater and the bit operators. No grid
 * or multi-grid groups, coalesced_threads or labeled partitions. Template parameters have
 * reserved names: users' macros (N, T...) are defined when this is included. */
#ifndef SIM_CG_H
#define SIM_CG_H

#include "sim_prelude.h"

namespace cooperative_groups
{

static inline unsigned sim_cg_rank(void) { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

class thread_block
{
  public:
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const { return sim_cg_rank(); }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
static inline thread_block this_thread_block(void) { return thread_block(); }
static inline void sync(const thread_block &g) { g.sync(); }

/* A tile of N consecutive threads of the block; N a power of two up to the warp width. */
template <unsigned _Np>
class thread_block_tile
{
    static_assert(_Np > 0 && _Np <= 64 && (_Np & (_Np - 1)) == 0,
                  "sim: tiled_partition<N> needs a power of two up to 64");

  public:
    void sync() const { __syncwarp(); }
    unsigned thread_rank() const { return sim_cg_rank() & (_Np - 1); }
    unsigned size() const { return _Np; }
    unsigned num_threads() const { return _Np; }
    unsigned meta_group_rank() const { return sim_cg_rank() / _Np; }
    unsigned meta_group_size() const { return (thread_block().size() + _Np - 1) / _Np; }
    template <typename _Tp>
    _Tp shfl(_Tp v, int src) const
    {
        return __shfl_sync(~0u, v, src, _Np);
    }
    template <typename _Tp>
    _Tp shfl_down(_Tp v, unsigned d) const
    {
        return __shfl_down_sync(~0u, v, d, _Np);
    }
    template <typename _Tp>
    _Tp shfl_up(_Tp v, unsigned d) const
    {
        return __shfl_up_sync(~0u, v, d, _Np);
    }
    template <typename _Tp>
    _Tp shfl_xor(_Tp v, int m) const
    {
        return __shfl_xor_sync(~0u, v, m, _Np);
    }
    /* This tile's lanes of the warp's ballot, from bit 0. */
    unsigned long long ballot(int pred) const
    {
        unsigned long long b = __ballot_sync(~0u, pred);
        unsigned first = sim_cg_rank() % (unsigned)warpSize & ~(_Np - 1);
        return (b >> first) & (_Np == 64 ? ~0ull : (1ull << _Np) - 1);
    }
    int any(int pred) const { return ballot(pred) != 0; }
    int all(int pred) const { return ballot(pred) == (_Np == 64 ? ~0ull : (1ull << _Np) - 1); }
};

/* A tile whose size is known only at run time: ranks and a barrier over the whole warp. */
class thread_group
{
    unsigned n_;

  public:
    explicit thread_group(unsigned n) : n_(n) {}
    void sync() const { __syncwarp(); }
    unsigned thread_rank() const { return sim_cg_rank() % n_; }
    unsigned size() const { return n_; }
    unsigned num_threads() const { return n_; }
};

template <unsigned _Np, typename _Pp>
static inline thread_block_tile<_Np> tiled_partition(const _Pp &)
{
    return thread_block_tile<_Np>();
}
static inline thread_group tiled_partition(const thread_block &, unsigned n) { return thread_group(n); }

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

/* Every lane of the tile gets op over the tile's values (a butterfly). */
template <unsigned _Np, typename _Tp, typename _Op>
static inline _Tp reduce(const thread_block_tile<_Np> &g, _Tp v, _Op op)
{
    for (unsigned m = _Np / 2; m > 0; m /= 2)
        v = op(v, g.shfl_xor(v, (int)m));
    return v;
}

} // namespace cooperative_groups

#endif
