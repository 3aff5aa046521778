/* test_merge.c: `harness merge` (merge.c): shard outputs become one report with the exit code
 * one run would give; a group-wide row every shard repeats is kept once; an XPASS one shard
 * declared while another caught the kernel is dropped; a bad input exits 2 naming path:line. */
#include <string.h>

#include "jsonl.h"
#include "merge.h"
#include "tutil.h"

static struct rep_result rec(const char *kernel, const char *case_name, enum hb_verdict v, int group_row)
{
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "sim");
    snprintf(r.device, sizeof r.device, "emulator");
    snprintf(r.lang, sizeof r.lang, "hip");
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.case_name, sizeof r.case_name, "%s", case_name);
    r.width = 64;
    r.op = OP_REDUCE;
    r.verdict = v;
    r.group_row = group_row;
    cmp_init(&r.cmp);
    return r;
}

static char *shard(const char *dir, const char *name, const struct rep_result *r, int n)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < n; i++)
        rep_write_json(f, &r[i]);
    fclose(f);
    return path;
}

static int merge(const char *out, char *a, char *b)
{
    char *argv[] = {"harness", "merge", "--json", (char *)out, a, b, NULL};
    return merge_main(6, argv);
}

START_TEST(shards_merge_into_one_run)
{
    char *dir = t_tmpdir();
    /* Shard 0 caught the canary; shard 1 saw it pass its slice and called that XPASS. Both
     * found the width unsupported for another kernel. */
    struct rep_result s0[] = {rec("canary", "big", V_XFAIL, 0), rec("generic", "big", V_PASS, 0),
                              rec("wide", "*", V_SKIP, 1)};
    struct rep_result s1[] = {rec("canary", "small", V_PASS, 0), rec("canary", "*", V_XPASS, 1),
                              rec("generic", "small", V_PASS, 0), rec("wide", "*", V_SKIP, 1)};
    char *a = shard(dir, "s0.jsonl", s0, 3), *b = shard(dir, "s1.jsonl", s1, 4);
    char out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    ck_assert_int_eq(merge(out, a, b), 0);
    struct rep_result *m;
    int n;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read(out, &m, &n, &err), 0);
    ck_assert_int_eq(n, 5);
    int skips = 0;
    for (int i = 0; i < n; i++) {
        ck_assert_int_ne(m[i].verdict, V_XPASS);
        skips += m[i].verdict == V_SKIP;
    }
    ck_assert_int_eq(skips, 1);
    free(m);
    free(a);
    free(b);
    t_rmtree(dir);
}
END_TEST

START_TEST(xpass_stands_when_no_shard_caught_it)
{
    char *dir = t_tmpdir();
    struct rep_result s0[] = {rec("canary", "big", V_PASS, 0), rec("canary", "*", V_XPASS, 1)};
    struct rep_result s1[] = {rec("canary", "small", V_PASS, 0), rec("canary", "*", V_XPASS, 1)};
    char *a = shard(dir, "s0.jsonl", s0, 2), *b = shard(dir, "s1.jsonl", s1, 2);
    char out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    ck_assert_int_eq(merge(out, a, b), 1);
    struct rep_result *m;
    int n;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read(out, &m, &n, &err), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(m[1].verdict, V_XPASS);
    free(m);
    free(a);
    free(b);
    t_rmtree(dir);
}
END_TEST

START_TEST(bad_input_and_usage_exit_2)
{
    char *dir = t_tmpdir();
    char *bad = t_write(dir, "bad.jsonl", "{\"backend\":\"sim\"}\n");
    char out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    ck_assert_int_eq(merge(out, bad, bad), 2);
    char *none[] = {"harness", "merge", NULL};
    ck_assert_int_eq(merge_main(2, none), 2);
    char *unknown[] = {"harness", "merge", "--frobnicate", bad, NULL};
    ck_assert_int_eq(merge_main(4, unknown), 2);
    free(bad);
    t_rmtree(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("merge");
    TCase *tc = tcase_create("merge");
    tcase_add_test(tc, shards_merge_into_one_run);
    tcase_add_test(tc, xpass_stands_when_no_shard_caught_it);
    tcase_add_test(tc, bad_input_and_usage_exit_2);
    suite_add_tcase(s, tc);
    return t_run(s);
}
