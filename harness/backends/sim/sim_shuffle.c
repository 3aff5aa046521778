/* SPDX-License-Identifier: MIT */
/* sim_shuffle.c: the random schedule's pass order, a Fisher-Yates shuffle drawing from the
 * block's stream exactly as sim_rand_below would, one draw per lane of the pass. The draws'
 * hashes are made first, a batch at a time: each is splitmix64 of the stream's counter, so
 * they do not depend on each other, and with AVX-512's 64-bit multiplies eight are made at
 * once. Made one by one as the shuffle went, they were most of a random pass's own cost
 * (about 12% of sgemm_tiled's random repeats). The orders are the same on every CPU. */
#include "sim_lanes.h"

#define SIM_DRAW_BATCH 64

/* The upper halves of draws t = 0 .. n-1 of a stream at counter s (n a multiple of 8). */
static void sim_hashes_scalar(uint64_t s, uint32_t *h, uint32_t n)
{
    for (uint32_t t = 0; t < n; t++)
        h[t] = (uint32_t)(sim_mix(s + t * SIM_MIX_GAMMA) >> 32);
}

#ifdef __x86_64__
typedef uint64_t sim_u64x8 __attribute__((vector_size(64)));
typedef uint32_t sim_u32x8 __attribute__((vector_size(32)));

/* sim_mix on eight counters at once. */
__attribute__((target("avx512f,avx512dq"))) static void sim_hashes_wide(uint64_t s, uint32_t *h, uint32_t n)
{
    const sim_u64x8 step = {0, 1, 2, 3, 4, 5, 6, 7};
    sim_u64x8 counter = s + step * SIM_MIX_GAMMA + SIM_MIX_GAMMA; /* with sim_mix's first add */
    for (uint32_t t = 0; t < n; t += 8, counter += 8 * SIM_MIX_GAMMA) {
        sim_u64x8 x = counter;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        sim_u32x8 hi = __builtin_convertvector(x >> 32, sim_u32x8);
        __builtin_memcpy(h + t, &hi, sizeof hi);
    }
}
#endif

int sim_wide_draws(void)
{
#ifdef __x86_64__
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512dq");
#else
    return 0;
#endif
}

void sim_shuffle_pass(struct sim_worker *w, uint32_t m)
{
    uint32_t h[SIM_DRAW_BATCH], *order = w->order;
    for (uint32_t i = m; i > 1;) {
        uint32_t todo = i - 1 < SIM_DRAW_BATCH ? i - 1 : SIM_DRAW_BATCH, made = (todo + 7) & ~7u;
#ifdef __x86_64__
        if (w->wide_draws)
            sim_hashes_wide(w->rng, h, made);
        else
#endif
            sim_hashes_scalar(w->rng, h, made);
        w->rng += todo * SIM_MIX_GAMMA;
        for (uint32_t t = 0; t < todo; t++, i--) {
            uint32_t j = sim_below(h[t], i), last = order[i - 1];
            order[i - 1] = order[j];
            order[j] = last;
        }
    }
}
