/* SPDX-License-Identifier: MIT */
/* test_infile.c: infile.c's inputs: a regular file opens, and a FIFO (which would block a
 * reader forever), a folder and a device are refused at once by name, a missing file with
 * ENOENT. */
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "infile.h"
#include "tutil.h"

START_TEST(regular_file_opens)
{
    char *dir = t_tmpdir(), *path = t_write(dir, "a.cases", "text\n");
    struct hb_err err = {{0}};
    FILE *f = infile_open(path, &err);
    ck_assert_ptr_nonnull(f);
    char buf[16] = "";
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    ck_assert_str_eq(buf, "text\n");
    fclose(f);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(fifo_folder_and_device_are_refused_at_once)
{
    char *dir = t_tmpdir(), fifo[128];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, dir, "/dev/zero"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct hb_err err = {{0}};
        char want[160];
        time_t t0 = time(NULL);
        ck_assert_ptr_null(infile_open(paths[i], &err));
        ck_assert_int_eq(errno, EINVAL);
        ck_assert_int_le(time(NULL) - t0, 1);
        snprintf(want, sizeof want, "%s: not a regular file", paths[i]);
        ck_assert_str_eq(err.msg, want);
    }
    t_rmtree(dir);
}
END_TEST

START_TEST(missing_file_says_so)
{
    struct hb_err err = {{0}};
    ck_assert_ptr_null(infile_open("/nonexistent/x.cases", &err));
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_str_eq(err.msg, "/nonexistent/x.cases: cannot open: No such file or directory");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("infile");
    TCase *t = tcase_create("open");
    tcase_add_test(t, regular_file_opens);
    tcase_add_test(t, fifo_folder_and_device_are_refused_at_once);
    tcase_add_test(t, missing_file_says_so);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
