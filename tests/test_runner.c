/* SPDX-License-Identifier: MIT */
/* test_runner.c: the conformance run's own machinery against the real emulator backend (the
 * child protocol's records are test_protocol.c's, child processes test_child.c's): planning
 * (case selection and shards, reference children without the case set), supervision (results, a
 * crash contained and the run going on, a hang killed) and the scheduler (parallel runs give the
 * serial run's rows, --maxfail). Needs `make` (hb_sim.so). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "child.h"
#include "merge.h"
#include "protocol.h"
#include "runner.h"
#include "tutil.h"

static const char cases_text[] = "reduce sum_{n} n=1,100,1000,4097,9000\n"
                                 "sgemm edge_{M}x{N}x{K} M=3,4 N=5 K=7\n";

static void load(struct run_ctx *cx, struct run_opts *o, const char *dir, const char *manifest)
{
    memset(o, 0, sizeof *o);
    o->cases = t_write(dir, "t.cases", cases_text);
    o->no_builtin = 1;
    o->manifests[o->n_manifests++] = manifest;
    o->repeats = 2, o->timeout_s = 5, o->device = -1, o->quiet = 1;
    memset(cx, 0, sizeof *cx);
    cx->o = o;
    struct hb_err err = {{0}};
    ck_assert_msg(plan_load(cx, &err) == 0, "%s", err.msg);
}

/* What load and a test made: the reports, the plan, the files. */
static void unload(struct run_ctx *cx, struct run_opts *o, char *manifest, char *dir)
{
    rep_close(&cx->sink);
    plan_free(cx);
    free((char *)o->cases), free(manifest);
    t_rmtree(dir);
}

/* A manifest for one CUDA kernel: the test reduction (tests/data/user_kernel, a block of 256
 * summing 1024 elements) or a shipped sgemm fault canary by its name. */
static char *kernel_manifest(const char *dir, const char *name, const char *extra)
{
    char text[2048];
    int reduce = !strcmp(name, "my_reduce");
    snprintf(text, sizeof text, "[%s]\nop = %s\nlang = cuda\nsource = %s/%s/%s.cu\nentry = %s\n%s%s", name,
             reduce ? "reduce" : "sgemm", HB_TEST_ROOT, reduce ? "tests/data/user_kernel" : "kernels/cuda", name, name,
             reduce ? "block = 256 1 1\ngrid = n/1024 1 1\nchunk = 1024\n" : "block = 16 16 1\ngrid = N/16 M/16 1\n",
             extra);
    return t_write(dir, "k.manifest", text);
}

START_TEST(plan_shards_split_the_cases_without_overlap)
{
    char *dir = t_tmpdir();
    char *manifest = kernel_manifest(dir, "my_reduce", "");
    int seen[16] = {0}, total = -1;
    for (int shard = 0; shard < 3; shard++) {
        struct run_ctx cx;
        struct run_opts o;
        load(&cx, &o, dir, manifest);
        o.shard = shard, o.shards = 3;
        struct probe with_vendor;
        memset(&with_vendor, 0, sizeof with_vendor);
        snprintf(with_vendor.vendor, sizeof with_vendor.vendor, "cublas");
        int n = plan_select_cases(&cx, NULL, &with_vendor, 1);
        ck_assert_int_gt(n, 0);
        for (int i = 0; i < cx.cases.n; i++)
            seen[i] += cx.data[i].used;
        total = cx.cases.n;
        plan_free(&cx);
        free((char *)o.cases);
    }
    /* Every case lands in exactly one shard (the sgemm ones are kept for the vendor library). */
    for (int i = 0; i < total; i++)
        ck_assert_int_eq(seen[i], 1);
    free(manifest);
    t_rmtree(dir);
}
END_TEST

/* `--kernel vendor/cublas` asks for the vendor library alone: its cases are selected. */
START_TEST(plan_selects_the_vendor_library_by_name)
{
    char *dir = t_tmpdir();
    char *manifest = kernel_manifest(dir, "my_reduce", "");
    struct run_ctx cx;
    struct run_opts o;
    load(&cx, &o, dir, manifest);
    o.kernel_globs[o.n_kernel_globs++] = "vendor/cublas";
    struct probe with_vendor;
    memset(&with_vendor, 0, sizeof with_vendor);
    snprintf(with_vendor.vendor, sizeof with_vendor.vendor, "cublas");
    ck_assert_int_eq(plan_select_cases(&cx, NULL, &with_vendor, 1), 2); /* the two sgemm cases */
    plan_free(&cx);
    free((char *)o.cases);
    memset(&with_vendor, 0, sizeof with_vendor); /* a backend without one: nothing */
    load(&cx, &o, dir, manifest);
    o.kernel_globs[o.n_kernel_globs++] = "vendor/cublas";
    ck_assert_int_eq(plan_select_cases(&cx, NULL, &with_vendor, 1), 0);
    plan_free(&cx);
    free((char *)o.cases), free(manifest);
    t_rmtree(dir);
}
END_TEST

static struct probe sim_probe;

/* The case set is not in a reference child (issue 47, N28: fork copied its page tables for
 * every case): a reference that reads it where the parent has it (HB_TEST_PEEK) crashes. */
START_TEST(reference_children_do_not_inherit_the_case_set)
{
    char *dir = t_tmpdir();
    free(t_write(dir, "peek.c",
                 "#include <stdlib.h>\nvoid peek(const float *x, float *y, int n)\n"
                 "{ volatile const char *p = (const char *)strtoull(getenv(\"HB_TEST_PEEK\"), NULL, 16);\n"
                 "  char c = *p; for (int i = 0; i < n; i++) y[i] = x[i] + (float)(c & 0); }\n"));
    char *manifest = t_write(dir, "k.manifest",
                             "[peek]\nop = custom\nlang = cuda\nsource = peek.c\nentry = e\nsizes = n\n"
                             "buffers = x f32 in n; y f32 out n\nargs = x y n\nblock = 32\ngrid = n/32\n"
                             "reference = peek.c peek\n");
    struct run_ctx cx;
    struct run_opts o;
    memset(&o, 0, sizeof o);
    o.cases = t_write(dir, "p.cases", "custom c_{n} n=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20\n");
    o.no_builtin = 1, o.repeats = 2, o.timeout_s = 5, o.device = -1, o.quiet = 1;
    o.manifests[o.n_manifests++] = manifest;
    memset(&cx, 0, sizeof cx);
    cx.o = &o;
    struct hb_err err = {{0}};
    ck_assert_msg(plan_load(&cx, &err) == 0, "%s", err.msg);
    char at[32];
    snprintf(at, sizeof at, "%llx", (unsigned long long)(uintptr_t)&cx.cases.c[cx.cases.n / 2]);
    setenv("HB_TEST_PEEK", at, 1);
    ck_assert_int_eq(plan_select_cases(&cx, NULL, &sim_probe, 1), 20);
    plan_prepare(&cx, 1);
    for (int i = 0; i < cx.cases.n; i++) {
        struct rep_result row;
        memset(&row, 0, sizeof row);
        op_custom.note(&cx.data[i], &cx.kernels.k[0], &row);
        ck_assert_msg(strstr(row.why, "reference peek (") && strstr(row.why, "crashed: read an address outside"), "%s",
                      row.why);
    }
    unsetenv("HB_TEST_PEEK");
    unload(&cx, &o, manifest, dir);
}
END_TEST

static void run_one_group(struct run_ctx *cx, const char *kernel_name)
{
    struct group g;
    memset(&g, 0, sizeof g);
    g.p = &sim_probe, g.width.width = 32;
    for (int i = 0; i < cx->kernels.n; i++)
        if (!strcmp(cx->kernels.k[i].name, kernel_name))
            g.k = &cx->kernels.k[i];
    ck_assert_ptr_nonnull(g.k);
    plan_select_cases(cx, NULL, &sim_probe, 1);
    plan_prepare(cx, 2);
    plan_group_cases(cx, &g);
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&cx->sink, NULL, NULL, NULL, &err), 0);
    cx->jobs = 1;
    sched_run(sched_start(cx, &g, 1, 0));
    free(g.cases);
}

START_TEST(supervision_runs_every_case_of_a_correct_kernel)
{
    char *dir = t_tmpdir();
    char *manifest = kernel_manifest(dir, "my_reduce", "");
    struct run_ctx cx;
    struct run_opts o;
    load(&cx, &o, dir, manifest);
    run_one_group(&cx, "my_reduce");
    ck_assert_int_eq(cx.sink.n, 5);
    ck_assert_int_eq(cx.sink.counts[V_PASS], 5);
    unload(&cx, &o, manifest, dir);
}
END_TEST

START_TEST(supervision_contains_a_crash_and_goes_on)
{
    char *dir = t_tmpdir();
    /* fault_crash dereferences null on every case: each case is its own crash row, and no
     * case is lost (no "expect": a crash of a kernel that claims to be right is an ERROR). */
    char *manifest = kernel_manifest(dir, "fault_crash", "");
    struct run_ctx cx;
    struct run_opts o;
    load(&cx, &o, dir, manifest);
    run_one_group(&cx, "fault_crash");
    ck_assert_int_eq(cx.sink.n, 2);
    for (int i = 0; i < cx.sink.n; i++) {
        ck_assert_int_eq(cx.sink.all[i].verdict, V_ERROR);
        ck_assert(cx.sink.all[i].cmp.classes & CLS_CRASH);
    }
    unload(&cx, &o, manifest, dir);
}
END_TEST

START_TEST(supervision_kills_a_hang_after_the_timeout)
{
    char *dir = t_tmpdir();
    char *manifest = kernel_manifest(dir, "fault_timeout", "timeout = 1\ncases = edge_3x5x7\n");
    struct run_ctx cx;
    struct run_opts o;
    load(&cx, &o, dir, manifest);
    time_t t0 = time(NULL);
    run_one_group(&cx, "fault_timeout");
    ck_assert_int_le(time(NULL) - t0, 10);
    ck_assert_int_eq(cx.sink.n, 1);
    ck_assert(cx.sink.all[0].cmp.classes & CLS_TIMEOUT);
    unload(&cx, &o, manifest, dir);
}
END_TEST

/* Every group of the test manifest at width 32, run with `jobs` workers; the rows in a
 * malloc'd array (*n of them). */
static struct rep_result *run_all(const char *dir, const char *manifest, int jobs, int maxfail, int *n)
{
    struct run_ctx cx;
    struct run_opts o;
    load(&cx, &o, dir, manifest);
    o.widths[o.n_widths++] = 32;
    o.maxfail = maxfail;
    cx.jobs = jobs;
    plan_select_cases(&cx, NULL, &sim_probe, 1);
    plan_prepare(&cx, jobs);
    struct group *groups;
    int n_groups = plan_groups(&cx, &sim_probe, 1, &groups);
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&cx.sink, NULL, NULL, NULL, &err), 0);
    sched_run(sched_start(&cx, groups, n_groups, 0));
    *n = cx.sink.n;
    struct rep_result *rows = calloc((size_t)cx.sink.n + 1, sizeof *rows);
    memcpy(rows, cx.sink.all, (size_t)cx.sink.n * sizeof *rows);
    rep_close(&cx.sink);
    plan_free_groups(groups, n_groups);
    plan_free(&cx);
    free((char *)o.cases);
    return rows;
}

/* Two correct kernels and a crashing one, one manifest. */
static char *three_kernels(const char *dir)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[my_reduce]\nop = reduce\nlang = cuda\nsource = %s/tests/data/user_kernel/my_reduce.cu\n"
             "entry = my_reduce\nblock = 256 1 1\ngrid = n/1024 1 1\nchunk = 1024\n"
             "[sgemm_naive]\nop = sgemm\nlang = cuda\nsource = %s/kernels/cuda/sgemm_naive.cu\nentry = sgemm_naive\n"
             "block = 16 16 1\ngrid = N/16 M/16 1\n"
             "[fault_crash]\nop = sgemm\nlang = cuda\nsource = %s/kernels/cuda/fault_crash.cu\nentry = fault_crash\n"
             "block = 16 16 1\ngrid = N/16 M/16 1\n",
             HB_TEST_ROOT, HB_TEST_ROOT, HB_TEST_ROOT);
    return t_write(dir, "three.manifest", text);
}

START_TEST(parallel_run_gives_the_serial_rows)
{
    char *dir = t_tmpdir();
    char *manifest = three_kernels(dir);
    int n1, n3;
    struct rep_result *serial = run_all(dir, manifest, 1, 0, &n1), *parallel = run_all(dir, manifest, 3, 0, &n3);
    /* The vendor library's rows, then 5 reductions, 2 products, 2 crashes. */
    ck_assert_int_eq(n1, n3);
    ck_assert_int_ge(n1, 9);
    for (int i = 0; i < n1; i++) {
        serial[i].kernel_ms = parallel[i].kernel_ms = 0;
        serial[i].first_launch_ms = parallel[i].first_launch_ms = 0;
        serial[i].child_ms = parallel[i].child_ms = 0;
        ck_assert_msg(!memcmp(&serial[i], &parallel[i], sizeof serial[i]), "row %d: %s/%s %s differs", i,
                      serial[i].kernel, serial[i].case_name, parallel[i].case_name);
    }
    free(serial), free(parallel), free(manifest);
    t_rmtree(dir);
}
END_TEST

START_TEST(maxfail_stops_the_run_and_says_so)
{
    char *dir = t_tmpdir();
    char *manifest = three_kernels(dir);
    int n;
    struct rep_result *rows = run_all(dir, manifest, 2, 1, &n);
    /* my_reduce's 5 passes, sgemm_naive's 2, then fault_crash's first case fails: the run
     * stops there and the rest of that group says why. */
    ck_assert_int_eq(n, 9);
    ck_assert_int_eq(rows[7].verdict, V_ERROR);
    ck_assert_int_eq(rows[8].verdict, V_SKIP);
    ck_assert_ptr_nonnull(strstr(rows[8].why, "--maxfail 1"));
    free(rows), free(manifest);
    t_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
    setenv("HB_ROOT", HB_TEST_ROOT, 1);
    setenv("HB_BUILD_DIR", HB_TEST_BUILD, 1);
    prb_probe("sim", &sim_probe);
    Suite *s = suite_create("runner");
    TCase *pl = tcase_create("plan");
    tcase_add_test(pl, plan_shards_split_the_cases_without_overlap);
    tcase_add_test(pl, plan_selects_the_vendor_library_by_name);
    tcase_add_test(pl, reference_children_do_not_inherit_the_case_set);
    suite_add_tcase(s, pl);
    TCase *sv = tcase_create("supervise");
    tcase_set_timeout(sv, 60);
    tcase_add_test(sv, supervision_runs_every_case_of_a_correct_kernel);
    tcase_add_test(sv, supervision_contains_a_crash_and_goes_on);
    tcase_add_test(sv, supervision_kills_a_hang_after_the_timeout);
    suite_add_tcase(s, sv);
    TCase *sc = tcase_create("schedule");
    tcase_set_timeout(sc, 120);
    tcase_add_test(sc, parallel_run_gives_the_serial_rows);
    tcase_add_test(sc, maxfail_stops_the_run_and_says_so);
    suite_add_tcase(s, sc);
    return s;
}

int main(void) { return t_run(suite()); }
