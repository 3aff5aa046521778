/* SPDX-License-Identifier: MIT */
/* test_sim_layout.c: the emulator's lane regions (harness/backends/sim/sim_abi.h, sim_lanes.h):
 * a block's descriptors and stack tops spread over distinct cache sets, each descriptor
 * below its region's guard page, and the stack room a thread has. The emulator is no archive
 * of the core, so its headers are included here. */
#include "backends/sim/sim_lanes.h"
#include "tutil.h"

/* A region's offset, in descriptor steps, within the L2 sets its region maps to: regions are
 * aligned to their size, so only the offset inside one picks a set. */
static unsigned desc_step(uintptr_t region) { return (unsigned)((SIM_DESC_AT(region) - region) / SIM_DESC_BYTES); }

START_TEST(a_blocks_descriptors_share_a_step_two_by_two)
{
    unsigned uses[SIM_DESC_AREA / SIM_DESC_BYTES] = {0};
    /* 256 lanes from an arbitrary region: the mapping's base is wherever mmap put it */
    uintptr_t first = (uintptr_t)0x7f3a5 << SIM_REGION_SHIFT;
    for (uintptr_t r = 0; r < 256; r++) {
        uintptr_t region = first + (r << SIM_REGION_SHIFT);
        unsigned step = desc_step(region);
        ck_assert_uint_lt(step, SIM_DESC_AREA / SIM_DESC_BYTES);
        ck_assert_uint_le(SIM_DESC_AT(region) + SIM_DESC_BYTES, region + SIM_DESC_AREA);
        uses[step]++;
    }
    for (unsigned s = 0; s < SIM_DESC_AREA / SIM_DESC_BYTES; s++)
        ck_assert_uint_eq(uses[s], 2);
}
END_TEST

START_TEST(stack_tops_share_a_step_two_by_two)
{
    unsigned uses[SIM_DESC_COLOURS] = {0};
    for (uint32_t lane = 0; lane < 256; lane++) {
        size_t colour = sim_stack_colour(lane);
        ck_assert_uint_le(colour, SIM_STACK_COLOUR_MAX);
        uses[colour / SIM_DESC_BYTES]++;
    }
    for (unsigned s = 0; s < SIM_DESC_COLOURS; s++)
        ck_assert_uint_eq(uses[s], 2);
}
END_TEST

START_TEST(the_guard_page_follows_the_descriptors)
{
    ck_assert_uint_eq(sim_guard_offset(4096), 16384);
    ck_assert_uint_eq(sim_guard_offset(16384), 16384);
    ck_assert_uint_eq(sim_guard_offset(65536), 65536);
    /* the least room a thread has, with 4 KiB pages: the overflow message's lower limit */
    size_t page = 4096;
    ck_assert_uint_eq(sim_stack_room(SIM_STACK_COLOUR_MAX, page) / 1024, 92);
    ck_assert_uint_eq(sim_stack_room(0, page) / 1024, 108);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim_layout");
    TCase *t = tcase_create("regions");
    tcase_add_test(t, a_blocks_descriptors_share_a_step_two_by_two);
    tcase_add_test(t, stack_tops_share_a_step_two_by_two);
    tcase_add_test(t, the_guard_page_follows_the_descriptors);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
