/* SPDX-License-Identifier: MIT */
/* test_merge.c: `harness merge` (merge.c): shard outputs become one report with the exit code
 * one run would give, every field (strides too) kept and each JUnit suite once; a group-wide
 * row every shard repeats is kept once; an XPASS one shard declared while another caught the
 * kernel is dropped; inputs that do not add up (empty, NUL bytes, cut short, a shard twice or
 * missing) and bad usage exit 2. */
#include <string.h>

#include "jsonl.h"
#include "merge.h"
#include "op_fixture.h"
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

/* What the next shard_k writes into its header as its run's selection and catalogue. */
static const char *next_selection = "", *next_cases = "";

/* A shard's --json file: header (shard k of `of`; of 0: not sharded), results, end record. */
static char *shard_k(const char *dir, const char *name, const struct rep_result *r, int n, int k, int of)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    struct run_header *h = calloc(1, sizeof *h);
    rep_header_init(h, 0, NULL);
    h->shard = k, h->shards = of;
    snprintf(h->selection, sizeof h->selection, "%s", next_selection);
    snprintf(h->cases, sizeof h->cases, "%s", next_cases);
    jsonl_write_header(f, h);
    free(h);
    for (int i = 0; i < n; i++)
        jsonl_write(f, &r[i]);
    jsonl_write_end(f, n, 0);
    fclose(f);
    return path;
}

static int shard_no;

static char *shard(const char *dir, const char *name, const struct rep_result *r, int n)
{
    return shard_k(dir, name, r, n, shard_no++ % 2, 2);
}

static int merge(const char *out, char *a, char *b)
{
    char *argv[] = {"harness", "merge", "--json", (char *)out, a, b, NULL};
    return merge_main(6, argv);
}

START_TEST(shards_merge_into_one_run)
{
    shard_no = 0;
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
    shard_no = 0;
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

START_TEST(strides_device_and_seed_survive_the_merge)
{
    char *dir = t_tmpdir();
    struct rep_result r[2] = {rec("strided", "stride_17x31x9", V_FAIL, 0), rec("strided", "stride_1x1x1", V_PASS, 0)};
    r[0].op = r[1].op = OP_SGEMM_STRIDED;
    static const char *const names[6] = {"M", "N", "K", "lda", "ldb", "ldc"};
    static const long values[6] = {17, 31, 9, 10, 33, 35};
    for (int i = 0; i < 6; i++)
        T_SET(&r[0], names[i], values[i]);
    r[0].device_index = 1, r[1].device_index = 1;
    r[0].seed = 18446744073709551557ull;
    char *a = shard_k(dir, "s0.jsonl", &r[0], 1, 0, 2), *b = shard_k(dir, "s1.jsonl", &r[1], 1, 1, 2);
    char out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    ck_assert_int_eq(merge(out, a, b), 1);
    struct rep_result *m;
    int n;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read(out, &m, &n, &err), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(T_SIZE(&m[0], "lda"), 10);
    ck_assert_int_eq(T_SIZE(&m[0], "ldb"), 33);
    ck_assert_int_eq(T_SIZE(&m[0], "ldc"), 35);
    ck_assert_int_eq(m[0].device_index, 1);
    ck_assert_uint_eq(m[0].seed, 18446744073709551557ull);
    free(m);
    free(a);
    free(b);
    t_rmtree(dir);
}
END_TEST

/* Inputs that do not add up, each paired with a good shard 0 of 2. */
static const struct {
    const char *text;
    size_t len;
} bad_shards[] = {
    {"", 0},
    {"\0\0\0\0\n\0\0\n", 8},
    {"{\"schema\":2,\"record\":\"header\",\"shard\":1,\"shards\":2}\n", 0}, /* cut: no end record */
    {"{\"schema\":2,\"record\":\"header\",\"shard\":1,\"shards\":3}\n{\"schema\":2,\"record\":\"end\",\"results\":0}\n",
     0},
};

START_TEST(inputs_that_do_not_add_up_exit_2)
{
    char *dir = t_tmpdir();
    struct rep_result r = rec("generic", "big", V_PASS, 0);
    char *good = shard_k(dir, "s0.jsonl", &r, 1, 0, 2);
    size_t len = bad_shards[_i].len ? bad_shards[_i].len : strlen(bad_shards[_i].text);
    char *bad = t_write_n(dir, "s1.jsonl", bad_shards[_i].text, len);
    char out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    ck_assert_int_eq(merge(out, good, bad), 2);
    free(good);
    free(bad);
    t_rmtree(dir);
}
END_TEST

START_TEST(same_shard_twice_or_one_missing_exit_2)
{
    char *dir = t_tmpdir();
    struct rep_result r = rec("generic", "big", V_PASS, 0);
    char *s0 = shard_k(dir, "s0.jsonl", &r, 1, 0, 2);
    char out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    ck_assert_int_eq(merge(out, s0, s0), 2);
    /* Two unsharded runs holding the same result: given twice all the same. */
    char *u0 = shard_k(dir, "u0.jsonl", &r, 1, 0, 0), *u1 = shard_k(dir, "u1.jsonl", &r, 1, 0, 0);
    ck_assert_int_eq(merge(out, u0, u1), 2);
    char *one[] = {"harness", "merge", "--json", out, s0, NULL};
    ck_assert_int_eq(merge_main(5, one), 2);
    char *partial[] = {"harness", "merge", "--allow-partial", "--json", out, s0, NULL};
    ck_assert_int_eq(merge_main(6, partial), 0);
    free(s0);
    free(u0);
    free(u1);
    t_rmtree(dir);
}
END_TEST

/* Shards of different runs (another catalogue, other filters) do not add up to one run: by the
 * headers' selection fingerprints, or, from a harness that wrote none, their catalogues. */
START_TEST(issue_47_shards_of_different_selections_exit_2)
{
    char *dir = t_tmpdir(), out[128];
    snprintf(out, sizeof out, "%s/merged.jsonl", dir);
    struct rep_result r0 = rec("generic", "big", V_PASS, 0), r1 = rec("generic", "small", V_PASS, 0);
    next_selection = "00000000000000aa";
    char *s0 = shard_k(dir, "s0.jsonl", &r0, 1, 0, 2), *s1 = shard_k(dir, "s1.jsonl", &r1, 1, 1, 2);
    next_selection = "00000000000000bb";
    char *t1 = shard_k(dir, "t1.jsonl", &r1, 1, 1, 2);
    ck_assert_int_eq(merge(out, s0, s1), 0);
    ck_assert_int_eq(merge(out, s0, t1), 2);
    next_selection = "", next_cases = "a.cases";
    char *u0 = shard_k(dir, "u0.jsonl", &r0, 1, 0, 2);
    next_cases = "b.cases";
    char *u1 = shard_k(dir, "u1.jsonl", &r1, 1, 1, 2);
    ck_assert_int_eq(merge(out, u0, u1), 2);
    next_cases = "";
    free(s0), free(s1), free(t1), free(u0), free(u1);
    t_rmtree(dir);
}
END_TEST

START_TEST(interleaved_shards_give_one_junit_suite_per_device_and_width)
{
    char *dir = t_tmpdir();
    struct rep_result s0[] = {rec("a", "c0", V_PASS, 0), rec("b", "c0", V_PASS, 0)};
    struct rep_result s1[] = {rec("a", "c1", V_PASS, 0), rec("b", "c1", V_PASS, 0)};
    s0[1].width = s1[1].width = 32;
    char *a = shard_k(dir, "s0.jsonl", s0, 2, 0, 2), *b = shard_k(dir, "s1.jsonl", s1, 2, 1, 2);
    char xml[128];
    snprintf(xml, sizeof xml, "%s/merged.xml", dir);
    char *argv[] = {"harness", "merge", "--junit", xml, a, b, NULL};
    ck_assert_int_eq(merge_main(6, argv), 0);
    char *text = t_slurp_path(xml);
    int suites = 0;
    for (const char *p = text; (p = strstr(p, "<testsuite ")); p++)
        suites++;
    ck_assert_int_eq(suites, 2);
    ck_assert_ptr_nonnull(strstr(text, "<testsuite name=\"sim:0:w64\""));
    ck_assert_ptr_nonnull(strstr(text, "<testsuite name=\"sim:0:w32\""));
    free(text);
    free(a);
    free(b);
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
    tcase_add_test(tc, strides_device_and_seed_survive_the_merge);
    tcase_add_loop_test(tc, inputs_that_do_not_add_up_exit_2, 0, (int)(sizeof bad_shards / sizeof bad_shards[0]));
    tcase_add_test(tc, same_shard_twice_or_one_missing_exit_2);
    tcase_add_test(tc, issue_47_shards_of_different_selections_exit_2);
    tcase_add_test(tc, interleaved_shards_give_one_junit_suite_per_device_and_width);
    suite_add_tcase(s, tc);
    return t_run(s);
}
