/* SPDX-License-Identifier: MIT */
/* test_cref.c: C references run contained (cref.c): built by the host compiler, called in a
 * child on regions between inaccessible pages; a right call returns its outputs, and every way
 * of going wrong (a read past a buffer, a write to an input, a wild pointer, abort, a hang, an
 * exit, a compile error, a missing symbol; a hang with its output closed, a helper left holding
 * it, a process left writing its outputs, a write into the slack before a buffer, an input made
 * writable, a fault hidden by a handler of its own, a compiler that never ends) is an error that
 * says which, within the reference's time. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

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

/* Issue 47: references that outlive, hide or undo what the harness watches. */
static const char *sly_source =
    "#include <signal.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <sys/mman.h>\n#include <unistd.h>\n"
    "void closes_and_spins(void *const *a) { (void)a; close(1); close(2); for (volatile int i = 1; i;) ; }\n"
    "void holds_output(void *const *a) { (void)a; if (fork() == 0) { sleep(30); _exit(0); } }\n"
    "void scribbles(void *const *a) { float *y = a[1]; int n = *(int *)a[2];\n"
    "  if (fork() == 0) { setsid(); for (;;) for (int i = 0; i < n; i++) y[i] = 12345; } }\n"
    "void before(void *const *a) { float *y = a[1]; y[-1] = 1; }\n"
    "static void quietly(int s) { (void)s; _exit(0); }\n"
    "void hides_fault(void *const *a) { float *y = a[1]; signal(SIGSEGV, quietly); y[*(int *)a[2] + 100] = 1; }\n"
    "void unprotects(void *const *a) { float *x = a[0]; uintptr_t pg = (uintptr_t)x & ~(uintptr_t)4095;\n"
    "  if (mprotect((void *)pg, 4096, PROT_READ | PROT_WRITE) == 0) x[0] = 7; }\n"
    "void execs(void *const *a) { (void)a; execl(\"/bin/true\", \"true\", (char *)0); }\n"
    "void stops_parent(void *const *a) { float *x = a[0], *y = a[1]; int n = *(int *)a[2];\n"
    "  int refused = kill(getppid(), SIGCONT) != 0 && kill(getppid(), SIGSTOP) != 0;\n"
    "  for (int i = 0; i < n; i++) y[i] = refused ? x[i] : -1; }\n";

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

START_TEST(a_reference_that_closes_its_output_still_has_a_deadline)
{
    float x[4] = {0}, y[4] = {0};
    struct hb_err err = {{0}};
    char *src = t_write(dir, "sly.c", sly_source);
    free(so);
    so = cref_build(src, "", 60, &err);
    ck_assert_msg(so != NULL, "%s", err.msg);
    double t0 = now_ms();
    ck_assert_int_eq(call("closes_and_spins", x, y, 4, 1, &err), -1);
    ck_assert_msg(strstr(err.msg, "did not return in 1 s: killed"), "%s", err.msg);
    ck_assert_msg(now_ms() - t0 < 5000, "took %.0f ms", now_ms() - t0);
    free(src);
}
END_TEST

START_TEST(a_reference_is_done_when_it_returns_and_ends_what_it_started)
{
    float x[300] = {0}, y[300] = {0};
    struct hb_err err = {{0}};
    char *src = t_write(dir, "sly.c", sly_source);
    free(so);
    so = cref_build(src, "", 60, &err);
    ck_assert_msg(so != NULL, "%s", err.msg);
    double t0 = now_ms();
    ck_assert_int_eq(call("holds_output", x, y, 300, 20, &err), -1);
    ck_assert_msg(strstr(err.msg, "returned leaving 1 process it started running (killed)"), "%s", err.msg);
    ck_assert_msg(now_ms() - t0 < 5000, "took %.0f ms: not its return", now_ms() - t0);
    ck_assert_int_eq(call("scribbles", x, y, 300, 20, &err), -1);
    ck_assert_msg(strstr(err.msg, "returned leaving 1 process it started running (killed)"), "%s", err.msg);
    ck_assert_float_eq(y[0], 0); /* nothing taken from a call that failed */
    free(src);
}
END_TEST

START_TEST(writes_that_fault_nowhere_and_hidden_faults_are_named)
{
    float x[300], y[300] = {0};
    for (int i = 0; i < 300; i++)
        x[i] = 0.1f * (float)(i + 1); /* every byte of x[0] differs from 7's */
    struct hb_err err = {{0}};
    char *src = t_write(dir, "sly.c", sly_source);
    free(so);
    so = cref_build(src, "", 60, &err);
    ck_assert_msg(so != NULL, "%s", err.msg);
    ck_assert_int_eq(call("before", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "wrote before the start of y (at byte -4; y has 1200 bytes)"), "%s", err.msg);
    ck_assert_int_eq(call("unprotects", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "wrote its input x (at byte 0)"), "%s", err.msg);
    ck_assert_int_eq(call("hides_fault", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "exited with status 0 without returning"), "%s", err.msg);
    ck_assert_int_eq(call("execs", x, y, 300, 10, &err), -1);
    ck_assert_msg(strstr(err.msg, "exited with status 0 without returning"), "%s", err.msg);
    ck_assert_int_eq(call("stops_parent", x, y, 300, 10, &err), 0);
    ck_assert_msg(y[299] == x[299], "the reference could signal the harness");
    free(src);
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

START_TEST(a_compile_error_is_the_error_line_whatever_the_path_holds)
{
    char *src = t_write(dir, "ref_error.c", "int f(int a)\n{\n    return a +;\n}\n");
    struct hb_err err = {{0}};
    ck_assert_ptr_null(cref_build(src, "", 60, &err));
    ck_assert_msg(strstr(err.msg, "ref_error.c:3:") && strstr(err.msg, " error: ") && !strstr(err.msg, "In function"),
                  "%s", err.msg);
    free(src);
}
END_TEST

/* A "compiler" that closes its output and sleeps, its sleep's pid in dir/cc.pid. */
START_TEST(a_compiler_that_never_ends_is_killed_with_what_it_started)
{
    char script[600];
    snprintf(script, sizeof script, "#!/bin/sh\nexec >&- 2>&-\nsleep 60 &\necho $! > %s/cc.pid\nwait\n", dir);
    char *cc = t_write(dir, "cc_hangs.sh", script), *src = t_write(dir, "ok.c", "int f(void) { return 1; }\n");
    chmod(cc, 0700);
    setenv("CC", cc, 1);
    struct hb_err err = {{0}};
    double t0 = now_ms();
    ck_assert_ptr_null(cref_build(src, "", 1, &err));
    ck_assert_msg(strstr(err.msg, "did not finish in 1 s: killed"), "%s", err.msg);
    ck_assert_msg(now_ms() - t0 < 5000, "took %.0f ms", now_ms() - t0);
    char pidfile[300];
    snprintf(pidfile, sizeof pidfile, "%s/cc.pid", dir);
    char *pid = t_slurp_path(pidfile);
    char stat[64], state = 0;
    snprintf(stat, sizeof stat, "/proc/%d/stat", atoi(pid));
    FILE *f = NULL;
    for (int tries = 0; tries < 50 && state != 'Z'; tries++, usleep(20 * 1000)) {
        if (!(f = fopen(stat, "r")))
            break;
        if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
            state = 0;
        fclose(f);
    }
    ck_assert_msg(!f || state == 'Z', "the compiler's sleep %d still runs (%c)", atoi(pid), state);
    free(pid), free(cc), free(src);
    unsetenv("CC");
}
END_TEST

START_TEST(the_build_folder_goes_on_the_signal_path)
{
    char folder[300];
    snprintf(folder, sizeof folder, "%s", so);
    *strrchr(folder, '/') = 0;
    struct stat st;
    ck_assert_int_eq(stat(folder, &st), 0);
    cref_remove_now();
    ck_assert_int_ne(stat(folder, &st), 0);
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
    tcase_add_test(t, a_reference_that_closes_its_output_still_has_a_deadline);
    tcase_add_test(t, a_reference_is_done_when_it_returns_and_ends_what_it_started);
    tcase_add_test(t, writes_that_fault_nowhere_and_hidden_faults_are_named);
    tcase_add_test(t, a_compile_error_is_the_error_line_whatever_the_path_holds);
    tcase_add_test(t, a_compiler_that_never_ends_is_killed_with_what_it_started);
    tcase_add_test(t, the_build_folder_goes_on_the_signal_path);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
