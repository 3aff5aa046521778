/* SPDX-License-Identifier: MIT */
/* test_sim_shuffle.c: the random schedule's pass orders (backends/sim/sim_shuffle.c) are the
 * Fisher-Yates shuffle drawing one sim_rand_below at a time, lane for lane, with the wide
 * draws and without, for passes shorter and longer than a batch of draws: a random repeat's
 * interleaving, and so what it shows of a race, must not depend on the CPU it ran on. */
#include "backends/sim/sim_shuffle.c"
#include "tutil.h"

#define MAX_LANES 1024

/* The shuffle as the scheduler made it before the draws came in batches. */
static void shuffle_one_by_one(struct sim_worker *w, uint32_t m)
{
    for (uint32_t i = m; i > 1; i--) {
        uint32_t j = sim_rand_below(w, i), t = w->order[i - 1];
        w->order[i - 1] = w->order[j];
        w->order[j] = t;
    }
}

/* Both ways from the same stream: the same order and the stream left at the same counter. */
static void check_same_order(uint32_t m, uint64_t seed, int wide)
{
    static uint32_t want[MAX_LANES], got[MAX_LANES];
    struct sim_worker a = {.order = want, .rng = seed}, b = {.order = got, .rng = seed, .wide_draws = wide};
    for (uint32_t i = 0; i < m; i++)
        want[i] = got[i] = i * 3 + 1;
    shuffle_one_by_one(&a, m);
    sim_shuffle_pass(&b, m);
    for (uint32_t i = 0; i < m; i++)
        ck_assert_msg(want[i] == got[i], "m=%u wide=%d: order[%u] is %u, one by one %u", m, wide, i, got[i], want[i]);
    ck_assert_msg(a.rng == b.rng, "m=%u wide=%d: the stream moved on differently", m, wide);
}

static const uint32_t pass_lengths[] = {0, 1, 2, 3, 8, 9, 63, 64, 65, 66, 129, 256, 1000, 1024};

START_TEST(batched_draws_give_the_one_by_one_order)
{
    for (size_t k = 0; k < sizeof pass_lengths / sizeof *pass_lengths; k++)
        for (uint64_t seed = 0; seed < 3; seed++)
            check_same_order(pass_lengths[k], sim_mix(seed), 0);
}
END_TEST

START_TEST(wide_draws_give_the_one_by_one_order)
{
    if (!sim_wide_draws())
        return; /* this CPU has no AVX-512: the batches are the scalar ones above */
    for (size_t k = 0; k < sizeof pass_lengths / sizeof *pass_lengths; k++)
        for (uint64_t seed = 0; seed < 3; seed++)
            check_same_order(pass_lengths[k], sim_mix(seed), 1);
}
END_TEST

/* Successive passes of one block draw on from where the last left the stream. */
START_TEST(successive_passes_continue_the_stream)
{
    static uint32_t want[MAX_LANES], got[MAX_LANES];
    struct sim_worker a = {.order = want, .rng = 42}, b = {.order = got, .rng = 42, .wide_draws = sim_wide_draws()};
    for (uint32_t pass = 0; pass < 5; pass++) {
        uint32_t m = 200 + 37 * pass;
        for (uint32_t i = 0; i < m; i++)
            want[i] = got[i] = i;
        shuffle_one_by_one(&a, m);
        sim_shuffle_pass(&b, m);
        ck_assert_mem_eq(want, got, m * sizeof *want);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim_shuffle");
    TCase *t = tcase_create("sim_shuffle");
    tcase_add_test(t, batched_draws_give_the_one_by_one_order);
    tcase_add_test(t, wide_draws_give_the_one_by_one_order);
    tcase_add_test(t, successive_passes_continue_the_stream);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
