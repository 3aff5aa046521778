/* SPDX-License-Identifier: MIT */
/* test_known.c: the known-bug lists (known.h): entries with and without a width, a [flakes]
 * section, a second list added to the first, a missing list that must exist, and the verdicts
 * a listed case gets (verdict.c): XFAIL when it fails, XPASS when a bug no longer shows, PASS
 * when a flake passes. */
#include <string.h>

#include "compare.h"
#include "known.h"
#include "tutil.h"
#include "verdict.h"

static const char shipped[] = "# a comment\n"
                              "vulkan llvmpipe* glsl/sgemm_naive long_* loops stop at 65535\n"
                              "hip * hip/reduce_* sum_* width=64 wave64 only\n"
                              "[flakes]\n"
                              "cuda * cuda/sgemm_tiled edge_* timing-dependent\n";

START_TEST(entries_match_by_width_and_flakes_are_marked)
{
    char *dir = t_tmpdir();
    char *path = t_write(dir, "known", shipped);
    struct known_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(known_parse_file(path, 1, &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(set.n, 3);
    ck_assert_ptr_nonnull(known_match(&set, "vulkan", "llvmpipe (LLVM 15)", 8, "glsl/sgemm_naive", "long_1x1x65537"));
    const struct known_bug *w = known_match(&set, "hip", "MI250X", 64, "hip/reduce_warp32", "sum_1");
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(w->reason, "wave64 only");
    ck_assert_ptr_null(known_match(&set, "hip", "MI250X", 32, "hip/reduce_warp32", "sum_1"));
    const struct known_bug *flake = known_match(&set, "cuda", "H200", 32, "cuda/sgemm_tiled", "edge_1x2x3");
    ck_assert(flake && flake->flaky && !w->flaky);
    known_free(&set);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(a_second_list_adds_and_a_required_one_must_exist)
{
    char *dir = t_tmpdir();
    char *a = t_write(dir, "a", shipped), *b = t_write(dir, "b", "sim * cuda/x y mine\n");
    struct known_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(known_parse_file(a, 0, &set, &err), 0);
    ck_assert_int_eq(known_parse_file(b, 1, &set, &err), 0);
    ck_assert_int_eq(set.n, 4);
    ck_assert_int_eq(known_parse_file("/nonexistent/list", 0, &set, &err), 0); /* the shipped list may be absent */
    ck_assert_int_eq(known_parse_file("/nonexistent/list", 1, &set, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/list"));
    char *bad = t_write(dir, "bad", "sim * cuda/x y width= reason\n");
    ck_assert_int_eq(known_parse_file(bad, 1, &set, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, ":1: expected"));
    known_free(&set);
    free(a), free(b), free(bad);
    t_rmtree(dir);
}
END_TEST

START_TEST(verdicts_of_listed_cases)
{
    struct known_bug bug = {.backend = "sim", .reason = "a driver bug", .file = "k", .line = 3};
    struct cmp_result bad, good;
    cmp_init(&bad), cmp_init(&good);
    bad.classes = CLS_WRONG;
    char why[256];
    ck_assert_int_eq(verdict_case(&bad, 0, 0, 0, &bug, why, sizeof why), V_XFAIL);
    ck_assert_ptr_nonnull(strstr(why, "known bug: a driver bug"));
    ck_assert_int_eq(verdict_case(&good, 0, 0, 0, &bug, why, sizeof why), V_XPASS);
    bug.flaky = 1;
    ck_assert_int_eq(verdict_case(&good, 0, 0, 0, &bug, why, sizeof why), V_PASS);
    ck_assert_int_eq(verdict_case(&bad, 0, 0, 0, &bug, why, sizeof why), V_XFAIL);
    ck_assert_ptr_nonnull(strstr(why, "known flake"));
}
END_TEST

/* A list's line `text` must be refused at line 2, saying `needle`. */
static void refused(const char *text, const char *needle)
{
    char *dir = t_tmpdir(), list[512];
    snprintf(list, sizeof list, "# drafted\n%s\n", text);
    char *path = t_write(dir, "kb", list);
    struct known_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(known_parse_file(path, 1, &set, &err) == -1, "accepted: %s", text);
    ck_assert_msg(strstr(err.msg, "/kb:") && strstr(err.msg, needle), "%s", err.msg);
    known_free(&set);
    free(path);
    t_rmtree(dir);
}

/* A list that would hide failures nobody triaged is refused, with the line and what to do: an
 * unedited known-bugs --from draft, flakes of every kernel, an entry for everything. */
START_TEST(issue_47_untriaged_or_everything_entries_are_refused)
{
    refused("sim SIMT*emulator*(2*cores) cuda/k n_1 width=32 TRIAGE: FAIL wrong: 1/1 bad",
            ":2: its reason still says TRIAGE");
    refused("[flakes]\nsim * * * flaky", ":3: a [flakes] entry for every kernel");
    refused("[flakes]\nsim gpu0 */* edge_* flaky", ":3: a [flakes] entry for every kernel");
    refused("sim * ** * everything fails", ":2: an entry for every device, kernel and case");
    /* Narrower entries stay: a flake of one kernel, every case of one kernel, a reason that
     * mentions triage further on. */
    char *dir = t_tmpdir();
    char *ok = t_write(dir, "ok", "sim * * n_* triaged: TRIAGE done\n[flakes]\nsim * cuda/k * flaky on every case\n");
    struct known_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(known_parse_file(ok, 1, &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(set.n, 2);
    known_free(&set);
    free(ok);
    t_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("known");
    TCase *t = tcase_create("known");
    tcase_add_test(t, entries_match_by_width_and_flakes_are_marked);
    tcase_add_test(t, a_second_list_adds_and_a_required_one_must_exist);
    tcase_add_test(t, verdicts_of_listed_cases);
    tcase_add_test(t, issue_47_untriaged_or_everything_entries_are_refused);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
