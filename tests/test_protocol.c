/* SPDX-License-Identifier: MIT */
/* test_protocol.c: the records a worker sends its parent (protocol.c): a well-formed LAUNCH
 * is read whole and its strings terminated, and every field out of range, or a class or a
 * verdict no child may claim, is refused. */
#include <unistd.h>

#include "child.h"
#include "protocol.h"
#include "tutil.h"

static void pipe_pair(int fds[2]) { ck_assert_int_eq(pipe(fds), 0); }

START_TEST(protocol_accepts_a_well_formed_launch)
{
    int fds[2];
    pipe_pair(fds);
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_LAUNCH, m.group = 7, m.index = 2, m.launch = 1, m.seen = CLS_OOB | CLS_INPUT_MODIFIED;
    m.guard_arg = 1, m.guard_offset = -4, m.fault_arg = -1;
    memset(m.why, 'k', sizeof m.why); /* no terminator: the reader adds one */
    ck_assert_int_eq(msg_send(fds[1], &m), 0);
    struct msg got;
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_read(fds[0], &got, sizeof got, 1000), 1);
    ck_assert_msg(msg_valid(&got, 7, 3, &err), "%s", err.msg);
    ck_assert_int_eq(got.guard_arg, 1);
    ck_assert_uint_eq(strlen(got.why), sizeof got.why - 1);
    close(fds[0]), close(fds[1]);
}
END_TEST

START_TEST(protocol_rejects_out_of_range_fields)
{
    enum { N_BAD = 13 };
    struct msg bad[N_BAD];
    memset(bad, 0, sizeof bad);
    for (int i = 0; i < N_BAD; i++)
        bad[i].type = MSG_LAUNCH, bad[i].guard_arg = bad[i].fault_arg = -1;
    bad[0].type = 99;
    bad[1].type = MSG_BEGIN, bad[1].index = 3; /* a group of 3 cases has indices 0..2 */
    bad[2].seen = CLS_WRONG;                   /* a child may not say an output is wrong */
    bad[3].type = MSG_RESULT, bad[3].seen = CLS_OOB;
    bad[4].group = 8; /* another group's message */
    bad[5].guard_arg = HB_MAX_BUF_ARGS, bad[5].seen = CLS_OOB;
    bad[6].fault_arg = 0; /* a buffer named without the class */
    bad[7].launch = -1;
    bad[8].kernel_ms = -1;
    bad[9].phase_ms[PH_LAUNCH] = 1.0 / 0.0;
    bad[10].type = MSG_GROUP, bad[10].rc = HB_OK; /* a child may not say a group passed */
    bad[11].type = MSG_DONE, bad[11].index = 2;
    bad[12].type = MSG_RESULT, bad[12].child_ms = 1e300;
    for (int i = 0; i < N_BAD; i++) {
        int fds[2];
        pipe_pair(fds);
        ck_assert_int_eq(msg_send(fds[1], &bad[i]), 0);
        struct msg got;
        struct hb_err err = {{0}};
        ck_assert_int_eq(child_read(fds[0], &got, sizeof got, 1000), 1);
        ck_assert_msg(!msg_valid(&got, 0, 3, &err), "bad message %d accepted", i);
        ck_assert(err.msg[0]);
        close(fds[0]), close(fds[1]);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("protocol");
    TCase *p = tcase_create("protocol");
    tcase_add_test(p, protocol_accepts_a_well_formed_launch);
    tcase_add_test(p, protocol_rejects_out_of_range_fields);
    suite_add_tcase(s, p);
    return s;
}

int main(void) { return t_run(suite()); }
