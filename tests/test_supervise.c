/* SPDX-License-Identifier: MIT */
/* test_supervise.c: what a sanitized group's end does to its rows (supervise.c). memcheck
 * stops a kernel at its first bad access, so the launch fails: a canary that expects oob is
 * caught (XFAIL), not an ERROR that fails the run, and a kernel claimed correct stays an
 * ERROR with the access as a class too. Without a finding, nothing is re-judged. And which
 * record a worker may send next (sup_due): only the one due. And the parent's own time is no
 * worker's: a deadline waits while the parent compares (sched_excuse). */
#include "rows.h"
#include "runner.h"
#include "scheduler.h"
#include "tutil.h"

static struct probe cuda;
static struct run_opts opts;
static struct kern_desc kernel;
static struct group group;

/* A memcheck log as compute-sanitizer writes it: one bad write, or none. */
static char *memcheck_log(const char *dir, int errors)
{
    return errors ? t_write(dir, "log",
                            "========= COMPUTE-SANITIZER\n"
                            "========= Invalid __global__ write of size 4 bytes\n"
                            "=========     at fault_oob+0x1080 in fault_oob.cu:21\n"
                            "========= ERROR SUMMARY: 1 error\n")
                  : t_write(dir, "log", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
}

/* A sanitized group of one case whose launch failed (the row the worker's RESULT made). */
static void fixture(struct run_ctx *cx, struct sup_group *s, unsigned expect)
{
    memset(cx, 0, sizeof *cx);
    memset(&opts, 0, sizeof opts);
    opts.sanitize = "memcheck";
    cx->o = &opts;
    memset(&cuda, 0, sizeof cuda);
    snprintf(cuda.name, sizeof cuda.name, "cuda");
    snprintf(cuda.dev[0].name, sizeof cuda.dev[0].name, "NVIDIA H200");
    memset(&kernel, 0, sizeof kernel);
    kernel.name = "fault_oob", kernel.lang = "cuda", kernel.any_width = 1, kernel.expect = expect;
    memset(&group, 0, sizeof group);
    group.p = &cuda, group.k = &kernel, group.width.width = 32, group.parts = 1;
    sup_group_init(s, &group);
    struct rep_result r;
    rows_identity(&r, &group);
    snprintf(r.case_name, sizeof r.case_name, "edge_15x16x17");
    r.cmp.classes = CLS_API;
    r.verdict = V_ERROR;
    snprintf(r.why, sizeof r.why, "launch: sticky CUDA error: cudaErrorLaunchFailure");
    sup_push_row(s, &r);
}

/* The group's end with a memcheck log of `errors` bad accesses (scratch files removed). */
static void end_group(struct run_ctx *cx, struct sup_group *s, int errors)
{
    char *dir = t_tmpdir(), *log = memcheck_log(dir, errors);
    sup_sanitized_end(cx, s, log, 0);
    free(log);
    t_rmtree(dir);
}

START_TEST(a_canary_stopped_by_memcheck_is_caught)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, CLS_OOB);
    end_group(&cx, &s, 1);
    ck_assert_int_eq(s.n_rows, 2);
    ck_assert_int_eq(s.rows[0].verdict, V_XFAIL);
    ck_assert_uint_eq(s.rows[0].cmp.classes, CLS_API | CLS_OOB);
    ck_assert_ptr_nonnull(strstr(s.rows[0].why, "memcheck"));
    ck_assert(s.rows[1].group_row && s.rows[1].verdict == V_XFAIL);
    ck_assert_int_eq(s.failing, 0);
    ck_assert(s.caught);
    sup_group_free(&s);
}
END_TEST

START_TEST(a_claimed_good_kernel_stays_an_error)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, 0);
    end_group(&cx, &s, 1);
    ck_assert_int_eq(s.rows[0].verdict, V_ERROR);
    ck_assert_uint_eq(s.rows[0].cmp.classes, CLS_API | CLS_OOB);
    ck_assert_int_eq(s.rows[1].verdict, V_FAIL);
    sup_group_free(&s);
}
END_TEST

START_TEST(without_a_finding_nothing_changes)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, CLS_OOB);
    end_group(&cx, &s, 0);
    ck_assert_int_eq(s.n_rows, 1);
    ck_assert_int_eq(s.rows[0].verdict, V_ERROR);
    ck_assert_uint_eq(s.rows[0].cmp.classes, CLS_API);
    sup_group_free(&s);
}
END_TEST

/* Whether a record of `type` for case `index` (launch: which, or how many for a RESULT) is due. */
static int due(const struct run_ctx *cx, const struct sup_group *s, const struct sup_worker *w, int type, int index,
               int launch, unsigned seen)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = type, m.index = index, m.launch = launch, m.seen = seen;
    struct hb_err err = {{0}};
    int ok = sup_due(cx, s, w, &m, &err);
    ck_assert(ok || err.msg[0]);
    return ok;
}

/* A worker sends only what it was asked for, in order (a forging kernel sends anything). */
START_TEST(only_the_record_due_is_taken)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, 0);
    opts.repeats = 2, group.n_cases = 2;
    struct sup_worker *w = calloc(1, sizeof *w);
    sup_turn_start(w, &s);
    s.next = 0;
    ck_assert(due(&cx, &s, w, MSG_BEGIN, 0, 0, 0));
    ck_assert(!due(&cx, &s, w, MSG_BEGIN, 1, 0, 0));
    ck_assert(!due(&cx, &s, w, MSG_DONE, 0, 0, 0)); /* its cases are not through */
    w->in_flight = 0;                               /* case 0 begun */
    ck_assert(!due(&cx, &s, w, MSG_GROUP, 0, 0, 0));
    ck_assert(!due(&cx, &s, w, MSG_LAUNCH, 0, 1, 0));
    ck_assert(due(&cx, &s, w, MSG_LAUNCH, 0, 0, 0));
    ck_assert(!due(&cx, &s, w, MSG_RESULT, 0, 0, 0)); /* no launch, no failed call */
    ck_assert(due(&cx, &s, w, MSG_RESULT, 0, 0, CLS_API));
    w->check.launches = 2;
    ck_assert(!due(&cx, &s, w, MSG_LAUNCH, 0, 2, 0)); /* more than the run asks for */
    ck_assert(!due(&cx, &s, w, MSG_RESULT, 1, 2, 0)); /* another case's */
    ck_assert(!due(&cx, &s, w, MSG_RESULT, 0, 2, CLS_API));
    ck_assert(due(&cx, &s, w, MSG_RESULT, 0, 2, 0));
    w->in_flight = -1, w->progressed = 1, s.next = 2, w->check.launches = 0;
    ck_assert(!due(&cx, &s, w, MSG_GROUP, 0, 0, 0));
    ck_assert(due(&cx, &s, w, MSG_DONE, 0, 0, 0));
    free(w);
    sup_group_free(&s);
}
END_TEST

/* A group record only before any case; after it nothing runs; the worker's next turn is fresh. */
START_TEST(a_group_record_ends_the_turn_not_the_worker)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, 0);
    opts.repeats = 2, group.n_cases = 2;
    s.next = 0;
    struct sup_worker *w = calloc(1, sizeof *w);
    sup_turn_start(w, &s);
    ck_assert(due(&cx, &s, w, MSG_GROUP, 0, 0, 0));
    w->said_group = 1;
    ck_assert(!due(&cx, &s, w, MSG_GROUP, 0, 0, 0));
    ck_assert(!due(&cx, &s, w, MSG_BEGIN, 0, 0, 0));
    ck_assert(due(&cx, &s, w, MSG_DONE, 0, 0, 0));
    sup_turn_start(w, &s); /* the next group it is sent */
    ck_assert(due(&cx, &s, w, MSG_BEGIN, 0, 0, 0));
    free(w);
    sup_group_free(&s);
}
END_TEST

/* due() with a return code: a GROUP's. */
static int group_due(const struct run_ctx *cx, const struct sup_group *s, const struct sup_worker *w, int rc)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_GROUP, m.rc = rc;
    struct hb_err err = {{0}};
    return sup_due(cx, s, w, &m, &err);
}

/* A kernel's code can run in its worker from the LOAD on (the emulator's static constructors):
 * a SKIP after it is not believed, from that worker ever again; an ERROR still ends the group. */
START_TEST(no_skip_is_taken_after_a_load)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, 0);
    group.n_cases = 2;
    s.next = 0;
    struct sup_worker *w = calloc(1, sizeof *w);
    sup_turn_start(w, &s);
    ck_assert(group_due(&cx, &s, w, HB_UNSUPPORTED)); /* decided before any kernel code ran */
    ck_assert(due(&cx, &s, w, MSG_LOAD, 0, 0, 0));
    sup_message(&cx, &s, w, &(struct msg){.type = MSG_LOAD});
    ck_assert(w->kernel_ran);
    ck_assert(!group_due(&cx, &s, w, HB_UNSUPPORTED));
    ck_assert(group_due(&cx, &s, w, HB_ERROR));
    sup_turn_start(w, &s); /* another group in the same worker */
    ck_assert(!group_due(&cx, &s, w, HB_UNSUPPORTED));
    w->in_flight = 0; /* a case begun: no load now */
    ck_assert(!due(&cx, &s, w, MSG_LOAD, 0, 0, 0));
    free(w);
    sup_group_free(&s);
}
END_TEST

/* A reused worker stopped while idle (SIGSTOP between groups) is killed at the deadline of the
 * group it was sent, of which it said nothing: no row blames that group's kernel, the group goes
 * to another worker; lost so a second time, or by a fresh worker, the group has its row. */
START_TEST(a_reused_worker_lost_before_the_group_began_costs_no_row)
{
    struct run_ctx cx;
    struct sup_group s;
    fixture(&cx, &s, 0);
    opts.timeout_s = 10, group.n_cases = 12;
    s.next = 0;
    int rows = s.n_rows;
    struct sup_worker *w = calloc(1, sizeof *w);
    w->served = 1; /* it finished a group before this one */
    sup_turn_start(w, &s);
    w->timed_out = 1;
    ck_assert_int_eq(sup_worker_lost(&cx, &s, w), 1);
    ck_assert_int_eq(s.n_rows, rows);
    ck_assert_int_eq(s.next, 0);
    sup_turn_start(w, &s); /* lost again, in the worker it went to */
    ck_assert_int_eq(sup_worker_lost(&cx, &s, w), 0);
    ck_assert_int_eq(s.n_rows, rows + 1);
    ck_assert(s.rows[rows].group_row && s.rows[rows].verdict == V_ERROR);
    ck_assert_msg(strstr(s.rows[rows].why, "no answer in 10 s"), "%s", s.rows[rows].why);
    sup_group_free(&s);
    fixture(&cx, &s, 0);
    opts.timeout_s = 10, group.n_cases = 12;
    s.next = 0, rows = s.n_rows;
    memset(w, 0, sizeof *w); /* a fresh worker: the group is the first it was sent */
    sup_turn_start(w, &s);
    w->timed_out = 1;
    ck_assert_int_eq(sup_worker_lost(&cx, &s, w), 0);
    ck_assert_int_eq(s.n_rows, rows + 1);
    free(w);
    sup_group_free(&s);
}
END_TEST

/* Two workers blocked sending their next launch while the parent compared for 20 s: neither
 * is charged, and one with no deadline (idle) gets none. */
START_TEST(the_parents_time_is_no_workers)
{
    struct sup_worker w[3];
    memset(w, 0, sizeof w);
    w[0].deadline = 1000, w[1].deadline = 5000;
    struct sched s = {.w = w, .n_workers = 3};
    sched_excuse(&s, 20000);
    ck_assert(w[0].deadline == 21000 && w[1].deadline == 25000);
    ck_assert(w[2].deadline == 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("supervise");
    TCase *t = tcase_create("supervise");
    tcase_add_test(t, a_canary_stopped_by_memcheck_is_caught);
    tcase_add_test(t, no_skip_is_taken_after_a_load);
    tcase_add_test(t, a_claimed_good_kernel_stays_an_error);
    tcase_add_test(t, without_a_finding_nothing_changes);
    tcase_add_test(t, only_the_record_due_is_taken);
    tcase_add_test(t, a_group_record_ends_the_turn_not_the_worker);
    tcase_add_test(t, the_parents_time_is_no_workers);
    tcase_add_test(t, a_reused_worker_lost_before_the_group_began_costs_no_row);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
