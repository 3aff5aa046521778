/* SPDX-License-Identifier: MIT */
/* test_outputs.c: the after-run files (outputs.c, report_file.c). Each replaces its target in
 * one step, only once whole: a run killed before its end leaves the previous CSV and baseline
 * as they were and no temporary behind, and in place of the HTML page one saying the run has
 * not finished; an interrupted run writes its page and CSV but never replaces a baseline. */
#include <dirent.h>

#include "outputs.h"
#include "run.h"
#include "tutil.h"

/* Files in dir, its scratch temporaries included. */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int holds(const char *path, const char *text)
{
    char *all = t_slurp_path(path);
    int yes = strstr(all, text) != NULL;
    free(all);
    return yes;
}

START_TEST(a_report_file_replaces_its_target_only_when_committed)
{
    char *dir = t_tmpdir(), *path = t_write(dir, "page", "old\n");
    struct rep_file rf;
    struct hb_err err = {{0}};
    ck_assert_msg(rep_file_prepare(&rf, path, &err) == 0, "%s", err.msg);
    ck_assert(holds(path, "old") && files_in(dir) == 1); /* checked, not touched */
    FILE *f = rep_file_begin(&rf, &err);
    ck_assert_ptr_nonnull(f);
    fputs("new\n", f);
    fflush(f);
    ck_assert(holds(path, "old") && files_in(dir) == 2);
    ck_assert_int_eq(rep_file_commit(&rf, &err), 0);
    ck_assert(holds(path, "new") && files_in(dir) == 1);
    f = rep_file_begin(&rf, &err);
    fputs("cut short\n", f);
    rep_file_release(&rf); /* a run that ends before it commits */
    ck_assert(holds(path, "new") && files_in(dir) == 1);
    ck_assert_int_eq(rep_file_prepare(&rf, "/nonexistent/dir/page", &err), -1);
    ck_assert_msg(strstr(err.msg, "/nonexistent/dir/page: cannot write"), "%s", err.msg);
    ck_assert_msg(rep_file_prepare(&rf, "/dev/null", &err) == 0, "%s", err.msg);
    ck_assert_ptr_nonnull(rf.direct);
    ck_assert_ptr_eq(rep_file_begin(&rf, &err), rf.direct);
    ck_assert_int_eq(rep_file_commit(&rf, &err), 0);
    rep_file_release(&rf);
    free(path);
    t_rmtree(dir);
}
END_TEST

/* A run over the previous run's page, CSV and baseline, ended `interrupted` or not. */
static void run_over(const char *dir, struct out_opts *o, int interrupted)
{
    struct hb_err err = {{0}};
    ck_assert_msg(out_prepare(o, &err) == 0, "%s", err.msg);
    ck_assert_msg(holds(o->html, "Not finished"), "no placeholder page");
    ck_assert(holds(o->csv, "previous") && holds(o->record, "previous"));
    ck_assert_int_eq(files_in(dir), 3);
    struct rep_sink s;
    ck_assert_int_eq(rep_open(&s, NULL, NULL, NULL, &err), 0);
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "sim"), snprintf(r.kernel, sizeof r.kernel, "k");
    snprintf(r.case_name, sizeof r.case_name, "c"), snprintf(r.lang, sizeof r.lang, "cuda");
    r.verdict = V_PASS;
    cmp_init(&r.cmp);
    rep_add(&s, &r);
    ck_assert_int_eq(out_finish(o, &s, EXIT_OK, interrupted, &err), EXIT_OK);
    rep_close(&s);
    ck_assert_int_eq(files_in(dir), 3);
}

START_TEST(an_interrupted_run_keeps_the_baseline_and_a_finished_one_replaces_it)
{
    char *dir = t_tmpdir();
    char *html = t_write(dir, "r.html", "previous page\n"), *csv = t_write(dir, "r.csv", "previous,Pass\n");
    char *record = t_write(dir, "base.jsonl", "previous baseline\n");
    struct out_opts o;
    memset(&o, 0, sizeof o);
    o.html = html, o.csv = csv, o.record = record;
    base_opts_init(&o.base);
    run_over(dir, &o, 1);
    ck_assert(holds(html, "This run was interrupted") && holds(csv, "sim:0:w0:cuda/k:c"));
    ck_assert(holds(record, "previous baseline"));
    free(t_write(dir, "r.csv", "previous,Pass\n"));
    run_over(dir, &o, 0);
    ck_assert(!holds(html, "interrupted") && holds(csv, "sim:0:w0:cuda/k:c"));
    ck_assert(holds(record, "\"record\":\"end\",\"results\":1,\"interrupted\":false"));
    free(html), free(csv), free(record);
    t_rmtree(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("outputs");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, a_report_file_replaces_its_target_only_when_committed);
    tcase_add_test(tc, an_interrupted_run_keeps_the_baseline_and_a_finished_one_replaces_it);
    suite_add_tcase(s, tc);
    return t_run(s);
}
