/* SPDX-License-Identifier: MIT */
/* test_cref.c: C references run contained (cref.c): built by the host compiler, called in a
 * child on regions between inaccessible pages; a right call returns its outputs, and every way
 * of going wrong (a read past a buffer, a write to an input, a wild pointer, abort, a hang, an
 * exit, a compile error, a missing symbol) is an error that says which. */
#include <string.h>

#include "cref.h"
#include "tutil.h"

static const char *source =
    "#include <stdlib.h>\n"
    "void twice(void *const *a) { float *x = a[0], *y = a[1]; int n = *(int *)a[2];\n"
    "  for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n"
    "void past(void *const *a) { float *x = a[0]; volatile float s = x[*(int *)a[2]]; (void)s; }\n"
    "void before(void *const *a) { float *x = a[0]; volatile float s = x[-1100]; (void)s; }\n"
    "void scribble(void *const *a) { float *x = a[0]; x[1] = 0; }\n"
    "void wild(void *const *a) { (void)a; *(volatile int *)16 = 1; }\n"
    "void dies(void *const *a) { (void)a; abort(); }\n"
    "void spins(void *const *a) { (void)a; for (volatile int i = 1; i;) ; }\n"
    "void leaves(void *const *a) { (void)a; exit(3); }\n";

static char *dir, *so;

static void setup(void)
{
    dir = t_tmpdir();
    char *src = t_write(dir, "ref.c", source);
    struct hb_err err = {{0}};
    so = cref_build(src, "/* glue */\nint cref_glue;\n", 60, &err);
    ck_assert_msg(so != NULL, "%s", err.msg);
    free(src);
}

static void teardown(void)
{
    free(so);
    t_rmtree(dir);
}

/* fn on x = 1..n, y writable, n; returns cref_call's result with err. */
static int call(const char *fn, float *x, float *y, int n, double timeout_s, struct hb_err *err)
{
    struct cref_buf b[3] = {
        {"x", x, (size_t)n * sizeof *x, 0}, {"y", y, (size_t)n * sizeof *y, 1}, {"size n", &n, sizeof n, 0}};
    return cref_call(so, fn, b, 3, timeout_s, err);
}

START_TEST(a_right_call_returns_its_outputs)
{
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(call("twice", x, y, 5, 10, &err) == 0, "%s", err.msg);
    for (int i = 0; i < 5; i++)
        ck_assert_float_eq(y[i], 2 * x[i]);
}
END_TEST

START_TEST(accesses_outside_the_buffers_are_named)
{
    float x[300] = {0}, y[300] = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(call("past", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "read past the end of x (at byte 1200; x has 1200 bytes)"), "%s", err.msg);
    ck_assert_int_eq(call("before", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "read before the start of x"), "%s", err.msg);
    ck_assert_int_eq(call("scribble", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "wrote its input x (at byte 4)"), "%s", err.msg);
    ck_assert_int_eq(call("wild", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "wrote an address outside every buffer"), "%s", err.msg);
    ck_assert_float_eq(x[1], 0); /* the caller's copy is untouched */
}
END_TEST

START_TEST(crashes_hangs_and_exits_are_named)
{
    float x[4] = {0}, y[4] = {0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(call("dies", x, y, 4, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "crashed: Aborted (signal 6)"), "%s", err.msg);
    ck_assert_int_eq(call("spins", x, y, 4, 1, &err), -1);
    ck_assert_msg(strstr(err.msg, "did not return in 1 s: killed"), "%s", err.msg);
    ck_assert_int_eq(call("leaves", x, y, 4, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "exited with status 3"), "%s", err.msg);
    ck_assert_int_eq(call("no_such_function", x, y, 4, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "does not load") && strstr(err.msg, "no_such_function"), "%s", err.msg);
}
END_TEST

START_TEST(a_compile_error_names_its_line)
{
    char *src = t_write(dir, "bad.c", "void f(void) { return 1 + undeclared; }\n");
    struct hb_err err = {{0}};
    ck_assert_ptr_null(cref_build(src, "", 60, &err));
    ck_assert_msg(strstr(err.msg, "does not compile (") && strstr(err.msg, "bad.c:1:") && strstr(err.msg, "undeclared"),
                  "%s", err.msg);
    free(src);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("cref");
    TCase *t = tcase_create("cref");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, a_right_call_returns_its_outputs);
    tcase_add_test(t, accesses_outside_the_buffers_are_named);
    tcase_add_test(t, crashes_hangs_and_exits_are_named);
    tcase_add_test(t, a_compile_error_names_its_line);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
