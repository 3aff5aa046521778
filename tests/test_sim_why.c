/* SPDX-License-Identifier: MIT */
/* test_sim_why.c: the headline of a failed emulator build when the disk is full
 * (backends/sim/sim_why.c): a compiler log that says "No space left on device" or "Disk quota
 * exceeded" leads with that, whatever else it names (a missing entry, a feature), and keeps the
 * first error and the log; a log of the source's own error is no full disk. */
#include "backends/sim/sim_why.c"
#include "tutil.h"

static int no_space(const char *dir, const char *log_text, const char *first, char *why, size_t len)
{
    char *log = t_write(dir, "k.cu.log", log_text);
    int rc = sim_no_space(log, first, why, len);
    free(log);
    return rc;
}

START_TEST(a_full_disk_is_the_headline_not_what_the_log_names_after_it)
{
    char *dir = t_tmpdir(), why[1024];
    const char *full = "sim_wrap.cc:83:283: fatal error: error writing to /tmp/t/ccm7rncs.s: No space left on device\n"
                       "sim_wrap.cc:90: error: 'sim_wrap_k' was not declared in this scope\n";
    ck_assert_int_eq(no_space(dir, full,
                              "sim_wrap.cc:83:283: fatal error: error writing to /tmp/t/ccm7rncs.s: No "
                              "space left on device",
                              why, sizeof why),
                     1);
    ck_assert_msg(!strncmp(why, "no space left on device", 23), "%s", why);
    ck_assert_msg(strstr(why, "(TMPDIR or the cache)") || strstr(why, "(TMPDIR)") || strstr(why, "(the cache)"), "%s",
                  why);
    ck_assert_msg(strstr(why, ": sim_wrap.cc:83:283: fatal error: error writing") && strstr(why, "k.cu.log)"), "%s",
                  why);
    ck_assert_int_eq(no_space(dir, "cc1plus: error: /c/x.o: Disk quota exceeded\n", "cc1plus: error", why, sizeof why),
                     1);
    ck_assert_msg(!strncmp(why, "disk quota exceeded", 19), "%s", why);
    /* The source's own mistake, on a disk with room (this scratch folder): no such headline. */
    ck_assert_int_eq(no_space(dir, "k.cu:3:1: error: expected ';' before '}' token\n", "k.cu:3:1: error: expected ';'",
                              why, sizeof why),
                     0);
    t_rmtree(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_why");
    TCase *tc = tcase_create("sim_why");
    tcase_add_test(tc, a_full_disk_is_the_headline_not_what_the_log_names_after_it);
    suite_add_tcase(s, tc);
    return t_run(s);
}
