/* SPDX-License-Identifier: MIT */
/* test_custom.c: op = custom as manifests and case lines describe it (custom_parse.c,
 * custom_expr.c, case_line.c): the README's example as written, each key's errors at the right
 * file:line, expressions (precedence, rounding up, overflow), the sizes a case gives and the
 * kernels that take it, and the launch arguments of buffers, sizes and scalars. The data and
 * comparison are test_custom_data.c's. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "custom.h"
#include "manifest.h"
#include "manifest_fixture.h"
#include "tutil.h"

/* The example of kernels/README.md, as written (comments included). */
static const char *example = "[row_softmax]\n"
                             "op        = custom\n"
                             "lang      = cuda\n"
                             "source    = sg.cu\n"
                             "entry     = softmax_rows\n"
                             "sizes     = rows cols                               # the case variables it takes\n"
                             "buffers   = x f32 in rows*cols; y f32 out rows*cols # name, type, role, length\n"
                             "args      = x y rows cols                           # the kernel's parameters\n"
                             "block     = 256 1 1\n"
                             "grid      = rows 1 1\n"
                             "reference = ref.c softmax_ref                       # C file and function\n"
                             "tolerance = ulp 64                                  # or: exact | rel R abs A\n";

static struct kern_desc *parse(const char *text, struct kern_set *set)
{
    free(t_write(dir, "ref.c", "void softmax_ref(void) {}\n"));
    char *path = t_write(dir, "k.manifest", text);
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, set, &err) == 0, "%s", err.msg);
    free(path);
    return &set->k[set->n - 1];
}

START_TEST(the_readme_example_parses_as_written)
{
    struct kern_set set = {0};
    const struct kern_desc *k = parse(example, &set);
    const struct cus_desc *d = k->custom;
    ck_assert_int_eq(k->op, OP_CUSTOM);
    ck_assert_int_eq(d->n_sizes, 2);
    ck_assert_str_eq(d->sizes[1], "cols");
    ck_assert_int_eq(d->n_bufs, 2);
    ck_assert_int_eq(d->bufs[1].role, CUS_OUT);
    ck_assert_int_eq(d->bufs[1].type, TY_F32);
    ck_assert_int_eq(d->bufs[0].len.rows, 0); /* rows*cols: a rows x cols matrix */
    ck_assert_int_eq(d->bufs[0].len.cols, 1);
    ck_assert_int_eq(d->tol, CUS_TOL_ULP);
    ck_assert_double_eq(d->ulp, 64);
    ck_assert_str_eq(d->ref_fn, "softmax_ref");
    ck_assert_ptr_nonnull(strstr(d->ref_source, "/ref.c"));
    ck_assert_int_eq(k->n_args, 4);
    ck_assert_uint_eq(k->args[0].kind, HB_PARAM_BUF);
    ck_assert_uint_eq(k->args[3].kind, HB_PARAM_I32);
    kern_set_free(&set);
}
END_TEST

/* The example with line `line` (1-based) replaced by `with` ("" drops it), into text. */
static void example_with(int line, const char *with, char text[4096])
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", example);
    text[0] = 0;
    int n = 1;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++)
        snprintf(text + strlen(text), 4096 - strlen(text), "%s\n", n == line ? with : l);
}

/* The example with line `line` replaced by `with`; must fail at line `at`, saying `needle`. */
static void expect_error(int line, const char *with, int at, const char *needle)
{
    char text[4096];
    example_with(line, with, text);
    free(t_write(dir, "ref.c", "void softmax_ref(void) {}\n"));
    char *path = t_write(dir, "k.manifest", text);
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == -1, "accepted:\n%s", text);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%d:", path, at);
    ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' does not start with '%s'", err.msg, prefix);
    ck_assert_msg(strstr(err.msg, needle), "'%s' does not say '%s'", err.msg, needle);
    kern_set_free(&set);
    free(path);
}

START_TEST(each_key_fails_at_its_line)
{
    expect_error(7, "buffers = x f31 in rows*cols; y f32 out rows", 7, "type 'f31' (f32 f64 f16 bf16");
    expect_error(7, "buffers = x f32 input rows; y f32 out rows", 7, "role 'input' (in, out, inout, scratch)");
    expect_error(7, "buffers = x f32 in rows*depth; y f32 out rows", 7, "'depth' is not one of the kernel's sizes");
    expect_error(7, "buffers = x f32 in rows; y f32 out rows zero", 7, "only in and inout buffers take an init");
    expect_error(7, "buffers = x f32 in rows range 1; y f32 out rows", 7, "init is zero, iota or range LO HI");
    expect_error(7, "buffers = x f32 in rows; y f32 in rows", 7, "no out or inout buffer");
    expect_error(7, "buffers = x f32 in rows; rows f32 out rows", 7, "'rows': the name is already the kernel's");
    expect_error(7, "buffers = x f32 in (rows; y f32 out rows", 7, "a '(' without its ')'");
    expect_error(6, "sizes = rows 2cols", 6, "size '2cols': expected a C name");
    expect_error(12, "tolerance = ulp -1", 12, "expected exact, ulp N, or rel R abs A");
    expect_error(12, "tolerance = rel 1e-5 rel 1e-6", 12, "expected exact, ulp N, or rel R abs A");
    expect_error(11, "reference = nothere.c f", 11, "nothere.c: No such file");
    expect_error(11, "reference = ref.c f-g", 11, "reference function 'f-g' is not a C name");
    expect_error(10, "grid = rows/0x 1 1", 10, "grid: 'rows/0x': unexpected 'x'");
    expect_error(8, "args = x rows cols", 8, "'y' is missing");
    expect_error(8, "args = x y rows cols depth", 8, "'depth' is not a parameter the kernel knows (x y rows cols)");
    expect_error(6, "", 1, "custom kernel [row_softmax] has no 'sizes'");
    expect_error(11, "", 1, "custom kernel [row_softmax] has no 'reference'");
    expect_error(8, "", 1, "custom kernel [row_softmax] has no 'args'");
    expect_error(12, "scalars = eps f32 abc", 12, "scalar eps = abc: expected a finite number");
    expect_error(12, "scalars = k i32 3000000000", 12, "expected a whole number that fits 32 bits");
    expect_error(12, "scalars = h f16 1", 12, "type 'f16' (f32 f64 i32 u32 i64 u64)");
    expect_error(2, "op = sgemm", 6, "sizes applies to op = custom only");
}
END_TEST

static long eval(const char *text, const long *sizes)
{
    struct cus_desc d = {.n_sizes = 2, .sizes = {"rows", "cols"}};
    struct cus_expr e;
    struct hb_err err = {{0}};
    ck_assert_msg(cus_expr_parse(text, &d, &e, &err) == 0, "%s", err.msg);
    long v = -12345;
    ck_assert_msg(cus_expr_eval(&e, sizes, &v, &err) == 0, "%s", err.msg);
    return v;
}

START_TEST(expressions_round_up_and_check_overflow)
{
    long s[2] = {7, 300};
    ck_assert_int_eq(eval("rows*cols", s), 2100);
    ck_assert_int_eq(eval("rows + cols * 2", s), 607);
    ck_assert_int_eq(eval("(rows + cols) * 2", s), 614);
    ck_assert_int_eq(eval("cols/256", s), 2); /* rounds up, as a grid's N/16 */
    ck_assert_int_eq(eval("cols/300", s), 1);
    ck_assert_int_eq(eval("-rows", s), -7);
    ck_assert_int_eq(eval("rows-cols/2", s), -143);
    ck_assert_int_eq(eval("-7/2", s), -3); /* up is towards +infinity */
    struct cus_desc d = {.n_sizes = 1, .sizes = {"n"}};
    struct cus_expr e;
    struct hb_err err = {{0}};
    long big[1] = {1L << 40}, v;
    ck_assert_int_eq(cus_expr_parse("n*n*n", &d, &e, &err), 0);
    ck_assert_int_eq(cus_expr_eval(&e, big, &v, &err), -1);
    ck_assert_str_eq(err.msg, "overflows 64 bits");
    ck_assert_int_eq(cus_expr_parse("n/(n-n)", &d, &e, &err), 0);
    ck_assert_int_eq(cus_expr_eval(&e, big, &v, &err), -1);
    ck_assert_str_eq(err.msg, "division by zero");
    ck_assert_int_eq(cus_expr_parse("2*n", &d, &e, &err), 0);
    ck_assert_int_eq(e.rows, -1); /* only SIZE*SIZE is a matrix */
}
END_TEST

START_TEST(a_kernel_takes_the_cases_that_give_exactly_its_sizes)
{
    struct kern_set set = {0};
    const struct kern_desc *k = parse(example, &set);
    struct case_set cs = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(case_parse_text("c.cases",
                                  "custom sm_{rows}x{cols} cols=3,300 rows=2 seed=9\n"
                                  "custom other rows=2\n"
                                  "custom more rows=2 cols=3 depth=4\n"
                                  "sgemm g M=1 N=1 K=1\n",
                                  &cs, &err) == 0,
                  "%s", err.msg);
    ck_assert_int_eq(cs.n, 5);
    ck_assert_str_eq(cs.c[1].name, "sm_2x300");
    ck_assert_int_eq(cs.c[1].n_sizes, 2);
    ck_assert_str_eq(cs.c[1].sizes[0].name, "cols");
    ck_assert_int_eq(cs.c[1].seed, 9);
    char text[96];
    case_sizes_text(cs.c[1].sizes, cs.c[1].n_sizes, text, sizeof text);
    ck_assert_str_eq(text, "cols=300 rows=2");
    ck_assert(kern_runs_case(k, &cs.c[0]) && kern_runs_case(k, &cs.c[1]));
    ck_assert(!kern_runs_case(k, &cs.c[2]) && !kern_runs_case(k, &cs.c[3]) && !kern_runs_case(k, &cs.c[4]));
    long sizes[CUS_MAX_SIZES];
    cus_case_sizes(k->custom, &cs.c[1], sizes);
    ck_assert(sizes[0] == 2 && sizes[1] == 300); /* in the kernel's order */
    unsigned grid[3];
    ck_assert_int_eq(kern_grid(k, &cs.c[1], grid, &err), 0);
    ck_assert(grid[0] == 2 && grid[1] == 1 && grid[2] == 1);
    case_set_free(&cs);
    kern_set_free(&set);
}
END_TEST

START_TEST(custom_case_lines_fail_at_their_line)
{
    struct case_set cs = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(case_parse_text("c.cases", "# one\ncustom none dist=exact\n", &cs, &err), -1);
    ck_assert_msg(strstr(err.msg, "c.cases:2: custom needs its sizes"), "%s", err.msg);
    ck_assert_int_eq(case_parse_text("c.cases", "custom bad 2x=3\n", &cs, &err), -1);
    ck_assert_msg(strstr(err.msg, "c.cases:1: '2x' is not a size name"), "%s", err.msg);
    ck_assert_int_eq(case_parse_text("c.cases", "custom twice n=3 n=4\n", &cs, &err), -1);
    ck_assert_msg(strstr(err.msg, "n given twice"), "%s", err.msg);
    ck_assert_int_eq(case_parse_text("c.cases", "custom same n=3,4\n", &cs, &err), -1);
    ck_assert_msg(strstr(err.msg, "put {n} or {dist}"), "%s", err.msg);
    case_set_free(&cs);
}
END_TEST

START_TEST(sizes_and_scalars_bind_in_declared_order)
{
    struct kern_set set = {0};
    const struct kern_desc *k = parse("[k]\nop = custom\nlang = cuda\nsource = sg.cu\nentry = e\nsizes = n m\n"
                                      "scalars = alpha f32 0.1; big i64 -5; mask u32 4294967295; eps f64 1e-3\n"
                                      "buffers = x f64 in n; y u8 inout m iota\n"
                                      "args = eps y mask n:i64 x alpha big\nblock = 64\ngrid = n/64\n"
                                      "reference = ref.c softmax_ref\n",
                                      &set);
    const struct cus_desc *d = k->custom;
    ck_assert_int_eq(d->tol, CUS_TOL_EXACT);                 /* the default */
    ck_assert_double_eq(d->scalars[3].value, (double)1e-3f); /* an f64 scalar passes through a float */
    struct op_layout lay = {.n_bufs = 2, .n_ints = 5, .ints = {10, 20, -5, -1}, .n_floats = 2, .floats = {0.1f, 1e-3f}};
    struct hb_args a;
    kern_bind(k, OP_CUSTOM, &lay, &a);
    ck_assert_int_eq(a.n_params, 7);
    ck_assert(a.params[0].kind == HB_PARAM_F32 && a.floats[a.params[0].index] == 1e-3f); /* eps */
    ck_assert(a.params[1].kind == HB_PARAM_BUF && a.params[1].index == 1);               /* y */
    ck_assert(a.params[2].kind == HB_PARAM_I32 && a.ints[a.params[2].index] == -1);      /* mask */
    ck_assert(a.params[3].kind == HB_PARAM_I64 && a.ints[a.params[3].index] == 10);      /* n:i64 */
    ck_assert(a.params[6].kind == HB_PARAM_I64 && a.ints[a.params[6].index] == -5);      /* big */
    kern_set_free(&set);
}
END_TEST

/* Kernels of `text` (manifest k.manifest), resolved; the message of cus_resolve in err. */
static int resolve(const char *text, struct kern_set *set, struct hb_err *err)
{
    free(t_write(dir, "ref.c", "void softmax_ref(void) {}\n"));
    free(t_write(dir, "sg.comp", "// glsl\n"));
    char *path = t_write(dir, "k.manifest", text);
    ck_assert_msg(kern_parse_file(path, set, err) == 0, "%s", err->msg);
    free(path);
    return cus_resolve(set, err);
}

/* A custom kernel [name] of `lang` taking the example's buffers, judged by `judge`. */
static char *port(char *buf, size_t len, const char *name, const char *lang, const char *buffers, const char *judge)
{
    snprintf(buf, len,
             "[%s]\nop = custom\nlang = %s\nsource = %s\nentry = e\nsizes = rows cols\nbuffers = %s\n"
             "args = x y rows cols\nblock = 256\ngrid = rows\n%s\n",
             name, lang, strcmp(lang, "glsl") ? "sg.cu" : "sg.comp", buffers, judge);
    return buf;
}

START_TEST(an_oracle_must_be_a_custom_kernel_of_the_same_buffers)
{
    const char *same = "x f32 in rows*cols; y f32 out rows*cols";
    char a[1024], b[1024], text[4096];
    struct hb_err err = {{0}};
    struct kern_set set = {0};
    snprintf(text, sizeof text, "%s\n%s", port(a, sizeof a, "orig", "cuda", same, "reference = ref.c softmax_ref"),
             port(b, sizeof b, "ported", "hip", "x f32 in rows*cols; y f32 out rows*cols", "oracle = cuda/orig"));
    ck_assert_msg(resolve(text, &set, &err) == 0, "%s", err.msg);
    ck_assert_ptr_eq(set.k[1].custom->oracle_k, &set.k[0]);
    ck_assert(!cus_same_data(&set.k[0], &set.k[1])); /* judged differently: data apart */
    kern_set_free(&set);
    static const struct {
        const char *oracle, *buffers, *lang, *says;
    } bad[] = {
        {"nobody", NULL, "cuda", "oracle nobody is no kernel of this run's manifests"},
        {"orig", "x f32 in rows*cols; y f64 out rows*cols", "cuda", "has other sizes or buffers"},
        {"orig", NULL, "glsl", "is not CUDA or HIP: an oracle runs on the emulator"},
        {"ported", NULL, "cuda", "is the kernel itself"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char judge[64];
        snprintf(judge, sizeof judge, "oracle = %s", bad[i].oracle);
        snprintf(text, sizeof text, "%s\n%s",
                 port(a, sizeof a, "orig", bad[i].lang, bad[i].buffers ? bad[i].buffers : same,
                      "reference = ref.c softmax_ref"),
                 port(b, sizeof b, "ported", "hip", same, judge));
        memset(&set, 0, sizeof set);
        ck_assert_int_eq(resolve(text, &set, &err), -1);
        ck_assert_msg(strstr(err.msg, "k.manifest:23: kernel [ported]: oracle ") && strstr(err.msg, bad[i].says), "%s",
                      err.msg);
        kern_set_free(&set);
    }
}
END_TEST

START_TEST(a_kernel_is_judged_by_a_reference_or_an_oracle)
{
    expect_error(12, "oracle = cuda/other", 1, "has both a 'reference' and an 'oracle': one judges it");
    expect_error(11, "", 1, "has no 'reference' (a C function) or 'oracle' (another kernel)");
    expect_error(11, "oracle = two words", 11, "oracle = two words: expected a kernel's name");
}
END_TEST

/* What no case could change is refused at parse, with the manifest's line: a division by a
 * constant 0, a constant length or grid dimension out of range, an empty constant range. */
START_TEST(issue_47_constant_errors_fail_at_parse)
{
    expect_error(7, "buffers = x f32 in rows/0; y f32 out rows", 7, "length rows/0 divides by 0 whatever the case");
    expect_error(7, "buffers = x f32 in rows; y f32 out rows/(2-2)", 7, "divides by 0 whatever the case");
    expect_error(7, "buffers = x f32 in 2147483648; y f32 out rows", 7,
                 "buffer x: length 2147483648 is 2147483648 elements (0 to 2147483647)");
    expect_error(7, "buffers = x f32 in 0-1; y f32 out rows", 7, "is -1 elements");
    expect_error(7, "buffers = x f32 in rows range 5 5; y f32 out rows", 7, "buffer x: range 5 5 is empty");
    expect_error(7, "buffers = x f32 in rows range 5 1; y f32 out rows", 7, "buffer x: range 5 1 is empty");
    expect_error(10, "grid = rows 0-1 1", 10, "grid 0-1 is -1 blocks");
    expect_error(10, "grid = rows/(3-3) 1 1", 10, "grid rows/(3-3) divides by 0 whatever the case");
    /* What depends on the case parses, and is the case's error (with this line) at run time. */
    struct kern_set set = {0};
    char text[4096];
    example_with(7, "buffers = x f32 in rows-cols range 0 rows; y f32 out rows", text);
    const struct kern_desc *k = parse(text, &set);
    ck_assert_int_eq(k->custom->bufs[0].line, 7);
    ck_assert_int_eq(k->custom->grid_line, 10);
    ck_assert_ptr_nonnull(strstr(k->custom->file, "/k.manifest"));
    kern_set_free(&set);
}
END_TEST

/* A float scalar reaches the kernel as a float: one that is infinite or 0 there is refused. */
START_TEST(issue_47_float_scalars_must_be_a_finite_float)
{
    expect_error(12, "scalars = s f32 1e40", 12, "scalar s = 1e40: infinite as a float");
    expect_error(12, "scalars = s f64 1e300", 12, "scalar s = 1e300: infinite as a float");
    expect_error(12, "scalars = s f32 1e-50", 12, "scalar s = 1e-50: 0 as a float");
    struct kern_set set = {0};
    char text[4096];
    example_with(12, "scalars = s f32 -3.4028235e38; t f32 -0; u f32 1e-45", text);
    const struct kern_desc *k = parse(text, &set);
    ck_assert_int_eq(k->custom->n_scalars, 3);
    kern_set_free(&set);
}
END_TEST

/* The reference is a C file: a FIFO (its build would hang), a folder, a device is refused. */
START_TEST(issue_47_a_reference_must_be_a_regular_file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fifo.c", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/folder.c", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/zero.c", dir);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    expect_error(11, "reference = fifo.c f", 11, "fifo.c: not a regular file");
    expect_error(11, "reference = folder.c f", 11, "folder.c: not a regular file");
    expect_error(11, "reference = zero.c f", 11, "reference /dev/zero: not a regular file");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("custom");
    TCase *t = tcase_create("custom");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, the_readme_example_parses_as_written);
    tcase_add_test(t, each_key_fails_at_its_line);
    tcase_add_test(t, expressions_round_up_and_check_overflow);
    tcase_add_test(t, a_kernel_takes_the_cases_that_give_exactly_its_sizes);
    tcase_add_test(t, custom_case_lines_fail_at_their_line);
    tcase_add_test(t, sizes_and_scalars_bind_in_declared_order);
    tcase_add_test(t, an_oracle_must_be_a_custom_kernel_of_the_same_buffers);
    tcase_add_test(t, a_kernel_is_judged_by_a_reference_or_an_oracle);
    tcase_add_test(t, issue_47_constant_errors_fail_at_parse);
    tcase_add_test(t, issue_47_float_scalars_must_be_a_finite_float);
    tcase_add_test(t, issue_47_a_reference_must_be_a_regular_file);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
