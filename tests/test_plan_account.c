/* SPDX-License-Identifier: MIT */
/* test_plan_account.c: what a run owes its reports beyond its cases (plan_account.c, issue 47):
 * a listed kernel no case of the catalogue can run is named with why (its sizes, its cases
 * glob, its op), whatever the filters; a shipped kernel runs on every tier and is the user's
 * business on a --cases catalogue; the selection fingerprint follows the catalogue, kernels
 * and filters and not the shard or device. */
#include "runner.h"
#include "tutil.h"

static const char manifest_text[] =
    "[good]\nop = custom\nlang = cuda\nsource = " HB_TEST_ROOT "/tests/data/custom/softmax.cu\nentry = softmax_rows\n"
    "sizes = n\nbuffers = x f32 in n; y f32 out n\nargs = x y n\nblock = 64 1 1\ngrid = n/64 1 1\n"
    "reference = " HB_TEST_ROOT "/kernels/ref/softmax_ref.c softmax_ref\n"
    "[typo]\nop = custom\nlang = cuda\nsource = " HB_TEST_ROOT "/tests/data/custom/softmax.cu\nentry = softmax_rows\n"
    "sizes = N\nbuffers = x f32 in N; y f32 out N\nargs = x y N\nblock = 64 1 1\ngrid = N/64 1 1\n"
    "reference = " HB_TEST_ROOT "/kernels/ref/softmax_ref.c softmax_ref\n"
    "[globbed]\nop = custom\nlang = cuda\nsource = " HB_TEST_ROOT
    "/tests/data/custom/softmax.cu\nentry = softmax_rows\n"
    "sizes = n\nbuffers = x f32 in n; y f32 out n\nargs = x y n\nblock = 64 1 1\ngrid = n/64 1 1\n"
    "reference = " HB_TEST_ROOT "/kernels/ref/softmax_ref.c softmax_ref\ncases = nosuch*\n"
    "[gemm]\nop = sgemm\nlang = cuda\nsource = " HB_TEST_ROOT "/kernels/cuda/sgemm_naive.cu\nentry = sgemm_naive\n"
    "block = 16 16 1\ngrid = N/16 M/16 1\n";

struct fixture {
    char *dir, *manifest;
    struct run_opts o;
    struct run_ctx cx;
};

/* The manifest above on `cases` (NULL: the tier), built-in kernels or not. */
static void load(struct fixture *f, const char *cases, int builtin)
{
    f->dir = t_tmpdir();
    f->manifest = t_write(f->dir, "k.manifest", manifest_text);
    memset(&f->o, 0, sizeof f->o);
    f->o.cases = cases ? t_write(f->dir, "t.cases", cases) : NULL;
    f->o.no_builtin = !builtin;
    f->o.manifests[f->o.n_manifests++] = f->manifest;
    f->o.device = -1;
    memset(&f->cx, 0, sizeof f->cx);
    f->cx.o = &f->o;
    struct hb_err err = {{0}};
    ck_assert_msg(plan_load(&f->cx, &err) == 0, "%s", err.msg);
}

static void unload(struct fixture *f)
{
    plan_free(&f->cx);
    free((char *)f->o.cases), free(f->manifest);
    t_rmtree(f->dir);
}

static const struct kern_desc *kernel(const struct fixture *f, const char *name)
{
    for (int i = 0; i < f->cx.kernels.n; i++)
        if (!strcmp(f->cx.kernels.k[i].name, name))
            return &f->cx.kernels.k[i];
    ck_abort_msg("no kernel %s", name);
    return NULL;
}

/* plan_no_case's words for kernel `name`, which must contain `want` (NULL: none expected). */
static void says(const struct fixture *f, const char *name, const char *want)
{
    char *why = plan_no_case(&f->cx, kernel(f, name));
    if (!want)
        ck_assert_msg(!why, "%s: %s", name, why);
    else
        ck_assert_msg(why && strstr(why, want), "%s: %s (want %s)", name, why ? why : "(none)", want);
    free(why);
}

START_TEST(issue_47_a_kernel_no_case_runs_says_why)
{
    struct fixture f;
    load(&f, "custom n_{n} n=1,100\ncustom pair n=5 m=3\n", 0);
    says(&f, "good", NULL);
    says(&f, "typo", "no custom case of ");
    says(&f, "typo", "t.cases gives exactly its sizes N (they give n; n m); declared at ");
    says(&f, "globbed", "its cases glob nosuch* matches no custom case of ");
    says(&f, "gemm", "t.cases has no sgemm case");
    /* The user's filters do not change what the catalogue holds. */
    f.o.case_globs[f.o.n_case_globs++] = "pair";
    says(&f, "good", NULL);
    says(&f, "typo", "gives exactly its sizes N");
    unload(&f);
}
END_TEST

/* On a tier every kernel, shipped or the user's, is owed a case; on the user's own catalogue
 * only the user's kernels are (a shipped canary for edge_* cases is theirs to leave out). */
START_TEST(issue_47_shipped_kernels_run_on_every_tier)
{
    static const char *const tiers[] = {"quick", "standard", "nightly"};
    for (int t = 0; t < 3; t++) {
        struct fixture f;
        load(&f, NULL, 1);
        f.o.tier = tiers[t];
        case_set_free(&f.cx.cases);
        char path[512];
        snprintf(path, sizeof path, "%s/cases/%s.cases", HB_TEST_ROOT, tiers[t]);
        struct hb_err err = {{0}};
        ck_assert_msg(case_parse_file(path, &f.cx.cases, &err) == 0, "%s", err.msg);
        for (int i = 0; i < f.cx.kernels.n; i++) {
            const struct kern_desc *k = &f.cx.kernels.k[i];
            char *why = k->user ? NULL : plan_no_case(&f.cx, k);
            ck_assert_msg(!why, "%s tier: %s/%s %s", tiers[t], k->lang, k->name, why);
        }
        says(&f, "gemm", NULL);
        unload(&f);
    }
    struct fixture f;
    load(&f, "custom n_{n} n=1,100\n", 1);
    int shipped = 0;
    for (int i = 0; i < f.cx.kernels.n; i++)
        if (!f.cx.kernels.k[i].user) {
            ck_assert_ptr_null(plan_no_case(&f.cx, &f.cx.kernels.k[i]));
            shipped++;
        }
    ck_assert_int_gt(shipped, 10);
    says(&f, "gemm", "has no sgemm case");
    unload(&f);
}
END_TEST

static void fingerprint(struct fixture *f, char out[17])
{
    plan_fingerprint(&f->cx, out);
    ck_assert_int_eq((int)strlen(out), 16);
}

START_TEST(issue_47_the_selection_fingerprint_follows_what_is_selected)
{
    struct fixture f;
    char base[17], other[17];
    load(&f, "custom n_{n} n=1,100\n", 0);
    fingerprint(&f, base);
    f.o.shard = 1, f.o.shards = 3, f.o.device = 1; /* one run's shards and devices */
    fingerprint(&f, other);
    ck_assert_str_eq(base, other);
    f.o.kernel_globs[f.o.n_kernel_globs++] = "good";
    fingerprint(&f, other);
    ck_assert_str_ne(base, other);
    f.o.n_kernel_globs = 0, f.o.widths[f.o.n_widths++] = 32;
    fingerprint(&f, other);
    ck_assert_str_ne(base, other);
    unload(&f);
    load(&f, "custom n_{n} n=1,101\n", 0); /* another catalogue */
    fingerprint(&f, other);
    ck_assert_str_ne(base, other);
    unload(&f);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan_account");
    TCase *t = tcase_create("plan_account");
    tcase_add_test(t, issue_47_a_kernel_no_case_runs_says_why);
    tcase_add_test(t, issue_47_shipped_kernels_run_on_every_tier);
    tcase_add_test(t, issue_47_the_selection_fingerprint_follows_what_is_selected);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    setenv("HB_ROOT", HB_TEST_ROOT, 1);
    return t_run(suite());
}
