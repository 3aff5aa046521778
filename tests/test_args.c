/* SPDX-License-Identifier: MIT */
/* test_args.c: declared signatures (issue 10): the manifest keys args, layout, shared_bytes and
 * deterministic (manifest_parse.c) against the op table's vocabulary (op.h), what a backend's
 * load() is told (kern_spec), the op's ABI when nothing is declared, and the case keys alpha=
 * and beta= with the op's defaults (case_line.c, op_gemm.c). */
#include <string.h>

#include "case.h"
#include "manifest.h"
#include "op_fixture.h"
#include "op_gemm.h"
#include "tutil.h"

static char *dir;

static void setup(void)
{
    dir = t_tmpdir();
    free(t_write(dir, "k.cu", "// a kernel\n"));
}

static void teardown(void) { t_rmtree(dir); }

/* Parses one kernel: the fixed keys, then `extra` lines. 0, or -1 with the message in err. */
static int parse(const char *op, const char *extra, struct kern_set *set, struct hb_err *err)
{
    char text[1024];
    int reduce = !strcmp(op, "reduce");
    snprintf(text, sizeof text,
             "[k]\nop = %s\nlang = cuda\nsource = k.cu\nentry = k\nblock = 16 16\n"
             "grid = %s\n%s%s",
             op, reduce ? "n/1024" : "N/16 M/16", extra, reduce ? "chunk = 1024\n" : "");
    char *path = t_write(dir, "k.manifest", text);
    int rc = kern_parse_file(path, set, err);
    free(path);
    return rc;
}

static const char *name_of(const struct kern_desc *k, int i) { return op_get(k->op)->params[k->args[i].param].name; }

START_TEST(args_are_kept_in_the_kernels_order_with_their_kinds)
{
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(parse("sgemm", "args = M N K alpha A B beta C\n", &set, &err) == 0, "%s", err.msg);
    const struct kern_desc *k = &set.k[0];
    const char *want[] = {"M", "N", "K", "alpha", "A", "B", "beta", "C"};
    const unsigned char kinds[] = {HB_PARAM_I32, HB_PARAM_I32, HB_PARAM_I32, HB_PARAM_F32,
                                   HB_PARAM_BUF, HB_PARAM_BUF, HB_PARAM_F32, HB_PARAM_BUF};
    ck_assert_int_eq(k->n_args, 8);
    struct hb_kernel_spec spec;
    kern_spec(k, "/b", &spec);
    ck_assert_int_eq(spec.n_params, 8);
    for (int i = 0; i < 8; i++) {
        ck_assert_str_eq(name_of(k, i), want[i]);
        ck_assert_uint_eq(k->args[i].kind, kinds[i]);
        ck_assert_uint_eq(spec.params[i], kinds[i]);
    }
    ck_assert(kern_takes(k, "alpha") && kern_takes(k, "beta") && !kern_takes(k, "lda"));
    kern_set_free(&set);
}
END_TEST

START_TEST(without_args_the_ops_abi_is_the_signature_and_backends_see_none)
{
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(parse("sgemm_strided", "", &set, &err) == 0, "%s", err.msg);
    struct kern_arg a[HB_MAX_PARAMS];
    int n = kern_args(&set.k[0], OP_SGEMM_STRIDED, a);
    const char *want[] = {"A", "B", "C", "M", "N", "K", "lda", "ldb", "ldc"};
    ck_assert_int_eq(n, 9);
    for (int i = 0; i < n; i++)
        ck_assert_str_eq(op_sgemm_strided.params[a[i].param].name, want[i]);
    struct hb_kernel_spec spec;
    kern_spec(&set.k[0], "/b", &spec);
    ck_assert_int_eq(spec.n_params, 0); /* backends keep the op's ABI, as before args existed */
    ck_assert(!kern_takes(&set.k[0], "beta") && !kern_takes(NULL, "alpha"));
    ck_assert_int_eq(kern_args(NULL, OP_REDUCE, a), 3); /* x partials n */
    ck_assert_str_eq(op_reduce.params[a[2].param].name, "n");
    kern_set_free(&set);
}
END_TEST

START_TEST(a_width_suffix_widens_an_integer_only)
{
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(parse("reduce", "args = partials x n:u64\n", &set, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(set.k[0].args[2].kind, HB_PARAM_I64);
    ck_assert_str_eq(name_of(&set.k[0], 0), "partials");
    kern_set_free(&set);
    ck_assert_msg(parse("reduce", "args = x partials n:i32\n", &set, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(set.k[0].args[2].kind, HB_PARAM_I32);
    kern_set_free(&set);
    ck_assert_int_eq(parse("reduce", "args = x:u64 partials n\n", &set, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "a width (i32, u32, i64, u64) is for an integer"));
    kern_set_free(&set);
    ck_assert_int_eq(parse("reduce", "args = x partials n:u16\n", &set, &err), -1);
    kern_set_free(&set);
}
END_TEST

/* Each bad `args` fails at its own line with what is wrong. */
START_TEST(bad_args_are_refused_with_the_reason)
{
    static const struct {
        const char *op, *line, *says;
    } bad[] = {
        {"sgemm", "args = M N K A B C alpha gamma\n",
         "'gamma' is not a parameter sgemm knows (A B C M N K lda ldb ldc alpha beta)"},
        {"sgemm", "args = A B M N K\n", "'C' is missing (every buffer of the op is a parameter)"},
        {"sgemm", "args = A B C M M\n", "'M' is given twice"},
        {"reduce", "args = x partials n alpha\n", "'alpha' is not a parameter reduce knows (x partials n identity)"},
        {"sgemm_strided", "args = A B C M N K\n", "'lda' is missing (sgemm_strided cases need their strides)"},
        {"sgemm", "args = A B C M N K lda ldb ldc alpha beta A B C M N K\n", "'A' is given twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kern_set set = {0};
        struct hb_err err = {{0}};
        ck_assert_int_eq(parse(bad[i].op, bad[i].line, &set, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].says) && strstr(err.msg, "k.manifest:8:"), "%s", err.msg);
        kern_set_free(&set);
    }
}
END_TEST

START_TEST(args_may_omit_sizes_the_grid_carries)
{
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(parse("sgemm", "args = C A B K N\n", &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(set.k[0].n_args, 5);
    kern_set_free(&set);
}
END_TEST

START_TEST(layout_shared_bytes_and_deterministic)
{
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(parse("sgemm", "layout = col\nshared_bytes = 2048\ndeterministic = no\n", &set, &err) == 0, "%s",
                  err.msg);
    const struct kern_desc *k = &set.k[0];
    ck_assert(k->col_major && k->nondeterministic);
    struct hb_kernel_spec spec;
    kern_spec(k, "/b", &spec);
    ck_assert_uint_eq(spec.shared_bytes, 2048);
    kern_set_free(&set);
    ck_assert_msg(parse("sgemm", "layout = row\ndeterministic = yes\n", &set, &err) == 0, "%s", err.msg);
    ck_assert(!set.k[0].col_major && !set.k[0].nondeterministic);
    kern_set_free(&set);
    static const struct {
        const char *op, *line, *says;
    } bad[] = {
        {"sgemm", "layout = diagonal\n", "layout = diagonal: expected row or col"},
        {"reduce", "layout = col\n", "layout applies to sgemm and sgemm_strided only"},
        {"sgemm", "deterministic = maybe\n", "expected yes or no"},
        {"sgemm", "shared_bytes = -4\n", "expected bytes from 0 to 16 MiB"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(parse(bad[i].op, bad[i].line, &set, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].says), "%s", err.msg);
        kern_set_free(&set);
    }
}
END_TEST

static int one_case(const char *line, struct hb_case *out, struct hb_err *err)
{
    struct case_set set = {0};
    char text[256];
    snprintf(text, sizeof text, "%s", line);
    int rc = case_parse_line(text, "t.cases", 1, &set, err);
    if (!rc)
        *out = set.c[0];
    case_set_free(&set);
    return rc;
}

START_TEST(case_alpha_beta_and_the_ops_defaults)
{
    struct hb_case c;
    struct hb_err err = {{0}};
    ck_assert_msg(one_case("sgemm a M=2 N=3 K=4 alpha=1.5 beta=0", &c, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(c.n_scalars, 2);
    ck_assert_str_eq(c.scalars[GEMM_ALPHA_AT].name, "alpha");
    ck_assert(c.scalars[GEMM_ALPHA_AT].given && c.scalars[GEMM_BETA_AT].given);
    ck_assert_float_eq(T_SCALAR(&c, "alpha"), 1.5f);
    ck_assert_float_eq(T_SCALAR(&c, "beta"), 0.0f);
    ck_assert_msg(one_case("sgemm_strided b M=2 N=3 K=4", &c, &err) == 0, "%s", err.msg);
    ck_assert(!c.scalars[GEMM_ALPHA_AT].given && !c.scalars[GEMM_BETA_AT].given);
    ck_assert_float_eq(T_SCALAR(&c, "alpha"), GEMM_ALPHA);
    ck_assert_float_eq(T_SCALAR(&c, "beta"), GEMM_BETA);
    static const struct {
        const char *line, *says;
    } bad[] = {
        {"reduce r n=5 alpha=2", "alpha= applies to sgemm and sgemm_strided cases only"},
        {"sgemm s M=1 N=1 K=1 beta=inf", "beta=inf: expected one finite number"},
        {"sgemm s M=1 N=1 K=1 beta=1x", "beta=1x: expected one finite number"},
        {"sgemm s M=1 N=1 K=1 alpha=1 alpha=2", "alpha given twice"},
        {"sgemm s M=1 N=1 K=1 gamma=2", "(M, N, K, dist, special, seed, note, alpha, beta)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(one_case(bad[i].line, &c, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].says), "%s", err.msg);
    }
}
END_TEST

/* What bench and the testbed pass (kern_bind): the declared order, integers and floats taken
 * from the layout's slots; the op's ABI for the vendor library. */
START_TEST(bound_arguments_follow_the_declared_order)
{
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(parse("sgemm", "args = beta K A lda B C alpha N M\n", &set, &err) == 0, "%s", err.msg);
    struct op_layout lay = {.n_bufs = 3,
                            .bytes = {4, 8, 12},
                            .n_ints = 6,
                            .ints = {10, 20, 30, 40, 50, 60},
                            .n_floats = 2,
                            .floats = {1.5f, 2.5f}};
    struct hb_args a;
    kern_bind(&set.k[0], OP_SGEMM, &lay, &a);
    ck_assert_int_eq(a.n_bufs, 3);
    ck_assert_uint_eq(a.bytes[2], 12);
    ck_assert_int_eq(a.n_params, 9);
    ck_assert_int_eq(a.n_ints, 4);
    ck_assert_int_eq(a.ints[0], 30); /* K */
    ck_assert_int_eq(a.ints[1], 40); /* lda */
    ck_assert_int_eq(a.ints[2], 20); /* N */
    ck_assert_int_eq(a.ints[3], 10); /* M */
    ck_assert_int_eq(a.n_floats, 2);
    ck_assert(a.floats[0] == 2.5f && a.floats[1] == 1.5f); /* beta, then alpha */
    ck_assert_uint_eq(a.params[0].kind, HB_PARAM_F32);
    ck_assert_uint_eq(a.params[0].index, 0);
    ck_assert_uint_eq(a.params[2].kind, HB_PARAM_BUF);
    ck_assert_uint_eq(a.params[2].index, 0); /* A */
    ck_assert_uint_eq(a.params[6].index, 1); /* alpha: the second float */
    kern_bind(NULL, OP_SGEMM, &lay, &a);     /* cuBLAS: A B C M N K */
    ck_assert_int_eq(a.n_params, 6);
    ck_assert_int_eq(a.n_ints, 3);
    ck_assert(a.ints[0] == 10 && a.ints[1] == 20 && a.ints[2] == 30);
    kern_set_free(&set);
}
END_TEST

Suite *args_suite(void)
{
    Suite *s = suite_create("args");
    TCase *m = tcase_create("manifest");
    tcase_add_checked_fixture(m, setup, teardown);
    tcase_add_test(m, args_are_kept_in_the_kernels_order_with_their_kinds);
    tcase_add_test(m, without_args_the_ops_abi_is_the_signature_and_backends_see_none);
    tcase_add_test(m, a_width_suffix_widens_an_integer_only);
    tcase_add_test(m, bad_args_are_refused_with_the_reason);
    tcase_add_test(m, args_may_omit_sizes_the_grid_carries);
    tcase_add_test(m, layout_shared_bytes_and_deterministic);
    tcase_add_test(m, bound_arguments_follow_the_declared_order);
    suite_add_tcase(s, m);
    TCase *c = tcase_create("cases");
    tcase_add_test(c, case_alpha_beta_and_the_ops_defaults);
    suite_add_tcase(s, c);
    return s;
}

int main(void) { return t_run(args_suite()); }
