/* SPDX-License-Identifier: MIT */
/* test_parts.c: long groups cut into parts (parts.c). A kernel's long group becomes runs of
 * its consecutive cases, every case in exactly one part, in order, of about equal work, the
 * header line on the first part only; known-bad kernels, the emulator's groups and runs of
 * one job are never cut, the vendor library in two at most; a canary's wait does not count
 * as work to share out; ordinals stay the serial order. */
#include "op_fixture.h"
#include "runner.h"
#include "tutil.h"

enum { N_CASES = 40 };

static struct hb_case cases[N_CASES];
static struct case_data data[N_CASES];
static struct probe gpu, sim;
static struct run_opts opts;

/* A run of `jobs` jobs over N_CASES cases of growing size. */
static void fixture(struct run_ctx *cx, int jobs)
{
    memset(cx, 0, sizeof *cx);
    memset(&opts, 0, sizeof opts);
    snprintf(gpu.name, sizeof gpu.name, "cuda");
    snprintf(sim.name, sizeof sim.name, "sim");
    sim.caps = HB_CAP_IN_PROCESS; /* what the probe reads from the backend */
    for (int i = 0; i < N_CASES; i++) {
        memset(&cases[i], 0, sizeof cases[i]);
        cases[i].op = OP_SGEMM;
        T_SET(&cases[i], "M", 16 + 8 * i), T_SET(&cases[i], "N", 16 + 8 * i), T_SET(&cases[i], "K", 16 + 8 * i);
        data[i].c = &cases[i];
        data[i].used = 1;
    }
    cx->o = &opts, cx->data = data, cx->jobs = jobs;
}

/* A group of every case, its cost summed as plan_group_cases does. */
static struct group group_of(const struct probe *p, const struct kern_desc *k, int ordinal)
{
    struct group g;
    memset(&g, 0, sizeof g);
    g.p = p, g.k = k, g.ordinal = ordinal, g.first_of_width = ordinal == 0, g.parts = 1;
    g.width.width = 32;
    g.cases = calloc(N_CASES, sizeof *g.cases);
    for (int i = 0; i < N_CASES; i++)
        g.cases[g.n_cases++] = i, g.cost += plan_case_cost(&cases[i]);
    return g;
}

START_TEST(a_long_kernel_group_is_cut_into_ordered_parts)
{
    struct run_ctx cx;
    fixture(&cx, 4);
    struct kern_desc good = {.name = "good", .lang = "cuda", .any_width = 1};
    struct group *groups = calloc(2, sizeof *groups);
    groups[0] = group_of(&gpu, &good, 0);
    groups[1] = group_of(&gpu, NULL, 1); /* the vendor library */
    int n = plan_split_groups(&cx, &groups, 2);
    ck_assert_int_gt(n, 3);
    int next_case = 0, parts = groups[0].parts;
    ck_assert_int_gt(parts, 1);
    ck_assert_int_le(parts, 4);
    for (int p = 0; p < parts; p++) {
        const struct group *g = &groups[p];
        ck_assert_int_eq(g->ordinal, p);
        ck_assert_int_eq(g->part, p);
        ck_assert_int_eq(g->parts, parts);
        ck_assert_int_eq(g->first_of_width, p == 0);
        ck_assert_int_gt(g->n_cases, 0);
        for (int i = 0; i < g->n_cases; i++)
            ck_assert_int_eq(g->cases[i], next_case++);
    }
    ck_assert_int_eq(next_case, N_CASES);
    ck_assert_ptr_null(groups[parts].k); /* the vendor group follows, in two parts */
    ck_assert_int_eq(groups[parts].parts, 2);
    ck_assert_int_eq(groups[parts].n_cases + groups[parts + 1].n_cases, N_CASES);
    ck_assert_int_eq(n, parts + 2);
    plan_free_groups(groups, n);
}
END_TEST

START_TEST(a_canary_waiting_for_its_timeout_does_not_stop_the_cuts)
{
    struct run_ctx cx;
    fixture(&cx, 8);
    struct kern_desc hang = {.name = "hang", .lang = "cuda", .any_width = 1, .expect = CLS_TIMEOUT};
    struct kern_desc good = {.name = "good", .lang = "cuda", .any_width = 1};
    struct group *groups = calloc(2, sizeof *groups);
    groups[0] = group_of(&gpu, &hang, 0);
    groups[0].cost += 1e14; /* its wait weighs in the order (plan_group_cases) */
    groups[1] = group_of(&gpu, &good, 1);
    int n = plan_split_groups(&cx, &groups, 2);
    ck_assert_int_eq(groups[0].parts, 1);
    ck_assert_int_eq(groups[0].n_cases, N_CASES);
    ck_assert_int_gt(groups[1].parts, 1);
    ck_assert_int_eq(n, 1 + groups[1].parts);
    plan_free_groups(groups, n);
}
END_TEST

START_TEST(groups_whose_cases_depend_on_each_other_stay_whole)
{
    struct run_ctx cx;
    fixture(&cx, 8);
    struct kern_desc canary = {.name = "canary", .lang = "cuda", .any_width = 1, .expect = CLS_WRONG};
    struct kern_desc wave64 = {.name = "wave64", .lang = "cuda", .n_widths = 1, .widths = {64}};
    struct kern_desc good = {.name = "good", .lang = "cuda", .any_width = 1};
    struct group *groups = calloc(3, sizeof *groups);
    groups[0] = group_of(&gpu, &canary, 0);
    groups[1] = group_of(&gpu, &wave64, 1); /* known bad at width 32 */
    groups[2] = group_of(&sim, &good, 2);   /* the emulator: a worker per group */
    ck_assert_int_eq(plan_split_groups(&cx, &groups, 3), 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(groups[i].parts, 1);
        ck_assert_int_eq(groups[i].n_cases, N_CASES);
    }
    plan_free_groups(groups, 3);
    fixture(&cx, 1); /* one job: nothing to gain */
    groups = calloc(1, sizeof *groups);
    groups[0] = group_of(&gpu, &good, 0);
    ck_assert_int_eq(plan_split_groups(&cx, &groups, 1), 1);
    plan_free_groups(groups, 1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("parts");
    TCase *t = tcase_create("parts");
    tcase_add_test(t, a_long_kernel_group_is_cut_into_ordered_parts);
    tcase_add_test(t, groups_whose_cases_depend_on_each_other_stay_whole);
    tcase_add_test(t, a_canary_waiting_for_its_timeout_does_not_stop_the_cuts);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
