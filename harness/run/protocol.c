/* SPDX-License-Identifier: MIT */
/* protocol.c: see protocol.h. The checks are of what the parent will use as an index, a count,
 * a class or a sum; identity, case fields and every figure a verdict reads are the parent's own
 * (supervise.c, verify.c). */
#include "protocol.h"

#include <math.h>
#include <string.h>

#include "backend.h"
#include "child.h"
#include "text.h"

static const char *const phase_names[PH_COUNT] = {
    [PH_START] = "process starts",
    [PH_OPEN] = "device opens",
    [PH_LOAD] = "kernel loads",
    [PH_INIT] = "host images",
    [PH_ALLOC] = "allocation",
    [PH_UPLOAD] = "uploads",
    [PH_LAUNCH] = "launch calls",
    [PH_DOWNLOAD] = "downloads",
    [PH_CHECK] = "guard and input checks",
    [PH_SEND] = "outputs to the parent",
    [PH_COMPARE] = "comparisons (parent)",
    [PH_RELEASE] = "releases",
};

const char *msg_phase_name(enum msg_phase p) { return p < PH_COUNT ? phase_names[p] : "?"; }

int msg_send(int fd, const struct msg *m) { return child_write(fd, m, sizeof *m); }

void msg_group(struct msg *m, int group, int rc, const char *why)
{
    memset(m, 0, sizeof *m);
    m->type = MSG_GROUP;
    m->group = group;
    m->rc = rc == HB_UNSUPPORTED ? HB_UNSUPPORTED : HB_ERROR;
    txt_copy(m->why, sizeof m->why, why);
}

/* Every string field ends inside its array, so no writer reads past it. */
#define TERMINATE(field) ((field)[sizeof(field) - 1] = 0)

/* A duration a child reports: finite, not negative, under a year. */
static int msg_time_ok(double ms) { return isfinite(ms) && ms >= 0 && ms < 3.2e10; }

static int msg_times_valid(const struct msg *m, struct hb_err *err)
{
    for (int p = 0; p < PH_COUNT; p++)
        if (!msg_time_ok(m->phase_ms[p])) {
            err_set(err, "phase time %g ms out of range", m->phase_ms[p]);
            return 0;
        }
    if (!msg_time_ok(m->kernel_ms) || !msg_time_ok(m->child_ms)) {
        err_set(err, "times %g and %g ms out of range", m->kernel_ms, m->child_ms);
        return 0;
    }
    return 1;
}

/* A buffer argument named by a LAUNCH: -1 (none) or an index verify.c checks against the case. */
static int msg_arg_ok(long arg) { return arg >= -1 && arg < HB_MAX_BUF_ARGS; }

static int msg_fields_valid(const struct msg *m, struct hb_err *err)
{
    unsigned allowed = m->type == MSG_LAUNCH ? MSG_SEEN : m->type == MSG_RESULT ? CLS_API : 0;
    if (m->seen & ~allowed) {
        err_set(err, "record of type %d saying classes 0x%x (a child may say 0x%x)", m->type, m->seen, allowed);
        return 0;
    }
    int launch = m->type == MSG_LAUNCH;
    if (launch && (!msg_arg_ok(m->guard_arg) || !msg_arg_ok(m->fault_arg) ||
                   ((m->guard_arg >= 0 || m->fault_arg >= 0) && !(m->seen & CLS_OOB)))) {
        err_set(err, "launch naming buffers %ld and %ld out of range or without an oob class", m->guard_arg,
                m->fault_arg);
        return 0;
    }
    if (m->launch < 0 || m->launch > 1000) {
        err_set(err, "launch count %d out of range", m->launch);
        return 0;
    }
    if (m->type == MSG_GROUP && m->rc != HB_ERROR && m->rc != HB_UNSUPPORTED) {
        err_set(err, "group record with return code %d (only HB_ERROR or HB_UNSUPPORTED end a group)", m->rc);
        return 0;
    }
    if (m->type == MSG_DONE && m->index != 0 && m->index != MSG_DONE_LEAVING) {
        err_set(err, "DONE with index %d", m->index);
        return 0;
    }
    return 1;
}

int msg_valid(struct msg *m, int group, int n_cases, struct hb_err *err)
{
    if (m->type < MSG_BEGIN || m->type > MSG_LOAD) {
        err_set(err, "message of unknown type %d", m->type);
        return 0;
    }
    if (m->group != group) {
        err_set(err, "message for group %d while running group %d", m->group, group);
        return 0;
    }
    int per_case = m->type == MSG_BEGIN || m->type == MSG_LAUNCH || m->type == MSG_RESULT;
    if (per_case && (m->index < 0 || m->index >= n_cases)) {
        err_set(err, "case index %d outside the group's %d cases", m->index, n_cases);
        return 0;
    }
    if (!msg_times_valid(m, err) || !msg_fields_valid(m, err))
        return 0;
    TERMINATE(m->why), TERMINATE(m->binary);
    return 1;
}
