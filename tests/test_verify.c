/* SPDX-License-Identifier: MIT */
/* test_verify.c: the parent's check of a case from the outputs its worker sent (verify.c): the
 * figures come from the bytes alone, a worker's observations only add classes, a repeat that
 * differs is nondeterminism, and a launch naming a buffer the case lacks is refused. */
#include <math.h>

#include "case.h"
#include "manifest.h"
#include "runner.h"
#include "tutil.h"

/* A reduction of n exact elements in chunks of 1024, with its references, and a kernel for it. */
struct fixture {
    struct hb_case c;
    struct kern_set ks;
    struct case_data d;
    struct vfy_case v;
};

static void setup(struct fixture *f, long n)
{
    memset(f, 0, sizeof *f);
    struct case_set set = {0};
    struct hb_err err = {{0}};
    char line[64];
    snprintf(line, sizeof line, "reduce s n=%ld dist=exact", n);
    ck_assert_msg(case_parse_line(line, "t.cases", 1, &set, &err) == 0, "%s", err.msg);
    f->c = set.c[0];
    case_set_free(&set);
    struct kern_desc *k = kern_set_push(&f->ks);
    k->op = OP_REDUCE, k->chunk = 1024, k->any_width = 1;
    f->d.c = &f->c;
    op_prepare(&f->d, &f->ks, 1);
    struct rep_result row;
    memset(&row, 0, sizeof row);
    cmp_init(&row.cmp);
    vfy_begin(&f->v, k, &f->d, &row);
}

static void teardown(struct fixture *f)
{
    vfy_free(&f->v);
    op_release(&f->d);
    kern_set_free(&f->ks);
}

/* Where the next launch's output (the reduction's one output buffer) is read. */
static float *out(struct fixture *f) { return f->v.got[f->v.first_out]; }

/* The right partials (exact data: the float64 sums are floats) into the next output. */
static void right_output(struct fixture *f)
{
    long blocks = (long)(f->v.out_bytes / sizeof(float));
    for (long b = 0; b < blocks; b++) {
        long n = case_size(&f->c, "n"), lo = b * 1024, hi = lo + 1024 < n ? lo + 1024 : n;
        double sum = 0;
        for (long i = lo; i < hi; i++)
            sum += f->d.in[0][i];
        out(f)[b] = (float)sum;
    }
}

static struct msg launch_msg(int launch)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_LAUNCH, m.launch = launch, m.guard_arg = m.fault_arg = -1, m.kernel_ms = 2.0 - launch;
    return m;
}

START_TEST(the_figures_come_from_the_output_bytes)
{
    struct fixture f;
    setup(&f, 3000);
    ck_assert_uint_eq(f.v.out_bytes, 3 * sizeof(float)); /* the parent's own layout: 3 blocks */
    right_output(&f);
    struct msg m = launch_msg(0);
    vfy_launch(&f.v, &m);
    right_output(&f);
    m = launch_msg(1);
    vfy_launch(&f.v, &m);
    ck_assert_uint_eq(f.v.r.cmp.classes, 0);
    ck_assert_int_eq(f.v.r.cmp.elements, 3);
    ck_assert_double_eq(f.v.r.kernel_ms, 1.0);       /* the faster launch */
    ck_assert_double_eq(f.v.r.first_launch_ms, 2.0); /* the first, though slower */
    teardown(&f);

    setup(&f, 3000);
    right_output(&f);
    out(&f)[1] += 1.0f;
    m = launch_msg(0);
    vfy_launch(&f.v, &m);
    ck_assert(f.v.r.cmp.classes & CLS_WRONG);
    ck_assert_int_eq(f.v.r.cmp.bad, 1);
    teardown(&f);
}
END_TEST

START_TEST(a_repeat_that_differs_is_nondeterminism)
{
    struct fixture f;
    setup(&f, 2048);
    right_output(&f);
    struct msg m = launch_msg(0);
    vfy_launch(&f.v, &m);
    right_output(&f);
    out(&f)[0] = nextafterf(out(&f)[0], INFINITY);
    m = launch_msg(1);
    vfy_launch(&f.v, &m);
    ck_assert_uint_eq(f.v.r.cmp.classes, CLS_NONDET);
    teardown(&f);
}
END_TEST

START_TEST(observations_add_classes_and_name_the_buffer)
{
    struct fixture f;
    setup(&f, 2048);
    right_output(&f);
    struct msg m = launch_msg(0);
    m.seen = CLS_OOB | CLS_INPUT_MODIFIED, m.guard_arg = 0, m.guard_offset = -8;
    struct hb_err err = {{0}};
    ck_assert_msg(vfy_accepts(&f.v, &m, &err), "%s", err.msg);
    vfy_launch(&f.v, &m);
    ck_assert_uint_eq(f.v.r.cmp.classes, CLS_OOB | CLS_INPUT_MODIFIED);
    ck_assert_int_eq(f.v.r.cmp.oob_buffer, 0);
    ck_assert_int_eq(f.v.r.cmp.oob_offset, -8);
    struct msg res;
    memset(&res, 0, sizeof res);
    res.type = MSG_RESULT, res.seen = CLS_API, res.child_ms = 3;
    snprintf(res.why, sizeof res.why, "launch: it failed");
    vfy_end(&f.v, &res);
    ck_assert(f.v.r.cmp.classes & CLS_API);
    ck_assert_str_eq(f.v.r.why, "launch: it failed");
    teardown(&f);
}
END_TEST

START_TEST(a_launch_naming_another_buffer_is_refused)
{
    struct fixture f;
    setup(&f, 2048);
    struct msg m = launch_msg(0);
    struct hb_err err = {{0}};
    m.seen = CLS_OOB, m.guard_arg = 2; /* a reduction has buffers 0 and 1 */
    ck_assert(!vfy_accepts(&f.v, &m, &err));
    m.guard_arg = 1, m.guard_offset = 1L << 40; /* far outside its image */
    ck_assert(!vfy_accepts(&f.v, &m, &err));
    m = launch_msg(1);
    m.seen = CLS_OOB, m.fault_arg = 0; /* faults are the first launch's */
    ck_assert(!vfy_accepts(&f.v, &m, &err));
    ck_assert(err.msg[0]);
    teardown(&f);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("verify");
    TCase *t = tcase_create("outputs");
    tcase_add_test(t, the_figures_come_from_the_output_bytes);
    tcase_add_test(t, a_repeat_that_differs_is_nondeterminism);
    tcase_add_test(t, observations_add_classes_and_name_the_buffer);
    tcase_add_test(t, a_launch_naming_another_buffer_is_refused);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
