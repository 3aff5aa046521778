/* protocol.c: see protocol.h. The checks are of what the parent will use as an index, a count
 * or a sum; identity and case fields are the parent's own (supervise.c refills them), and the
 * verdict is the parent's too (it judges RESULT rows from their figures). */
#include "protocol.h"

#include <math.h>
#include <string.h>

#include "child.h"

static const char *const phase_names[PH_COUNT] = {
    [PH_START] = "process starts", [PH_OPEN] = "device opens",  [PH_LOAD] = "kernel loads",
    [PH_INIT] = "host images",     [PH_ALLOC] = "allocation",   [PH_UPLOAD] = "uploads",
    [PH_LAUNCH] = "launch calls",  [PH_DOWNLOAD] = "downloads", [PH_CHECK] = "guard and repeat checks",
    [PH_COMPARE] = "comparisons",  [PH_RELEASE] = "releases",
};

const char *msg_phase_name(enum msg_phase p) { return p < PH_COUNT ? phase_names[p] : "?"; }

int msg_send(int fd, const struct msg *m) { return child_write(fd, m, sizeof *m); }

/* Every string field ends inside its array, so no writer reads past it. */
#define TERMINATE(field) ((field)[sizeof(field) - 1] = 0)

/* A duration a child reports: finite, not negative, under a year. */
static int msg_time_ok(double ms) { return isfinite(ms) && ms >= 0 && ms < 3.2e10; }

static int msg_figures_valid(const struct rep_result *r, struct hb_err *err)
{
    const struct cmp_result *c = &r->cmp;
    if ((unsigned)r->verdict >= V_COUNT || (unsigned)r->op >= OP_COUNT || c->classes >> CLS_COUNT ||
        (r->group_row != 0 && r->group_row != 1)) {
        err_set(err, "result with verdict %d, op %d, classes 0x%x, group_row %d out of range", (int)r->verdict,
                (int)r->op, c->classes, r->group_row);
        return 0;
    }
    if (c->elements < 0 || c->bad < 0 || c->nan_mismatch < 0 || c->unwritten < 0 || c->overflowed < 0 ||
        c->oob_buffer < -1 || c->oob_buffer >= HB_MAX_BUF_ARGS || c->first_i < -1 || c->first_j < -1 ||
        c->heat_rows < 0 || c->heat_cols < 0) {
        err_set(err, "result with counts or positions out of range (elements %ld, bad %ld, oob buffer %ld)",
                c->elements, c->bad, c->oob_buffer);
        return 0;
    }
    for (size_t i = 0; i < sizeof c->heat; i++)
        if (c->heat[i] > CMP_HEAT_UNWRITTEN) {
            err_set(err, "result with heat map cell %zu = %u out of range", i, c->heat[i]);
            return 0;
        }
    if (!msg_time_ok(r->kernel_ms) || !msg_time_ok(r->child_ms)) {
        err_set(err, "result with times %g and %g ms out of range", r->kernel_ms, r->child_ms);
        return 0;
    }
    return 1;
}

int msg_valid(struct msg *m, int group, int n_cases, struct hb_err *err)
{
    struct rep_result *r = &m->r;
    if (m->type < MSG_BEGIN || m->type > MSG_DONE) {
        err_set(err, "message of unknown type %d", m->type);
        return 0;
    }
    if (m->group != group) {
        err_set(err, "message for group %d while running group %d", m->group, group);
        return 0;
    }
    if ((m->type == MSG_BEGIN || m->type == MSG_RESULT) && (m->index < 0 || m->index >= n_cases)) {
        err_set(err, "case index %d outside the group's %d cases", m->index, n_cases);
        return 0;
    }
    for (int p = 0; p < PH_COUNT; p++)
        if (!msg_time_ok(m->phase_ms[p])) {
            err_set(err, "phase time %g ms out of range", m->phase_ms[p]);
            return 0;
        }
    if (!msg_time_ok(m->device_ms)) {
        err_set(err, "device time %g ms out of range", m->device_ms);
        return 0;
    }
    if (m->type == MSG_BEGIN || m->type == MSG_DONE)
        return 1;
    if (!msg_figures_valid(r, err))
        return 0;
    if (m->type == MSG_GROUP && r->verdict != V_SKIP && r->verdict != V_ERROR) {
        err_set(err, "group row with verdict %s (only SKIP or ERROR come from a child)", verdict_name(r->verdict));
        return 0;
    }
    TERMINATE(r->backend), TERMINATE(r->device), TERMINATE(r->driver), TERMINATE(r->lang);
    TERMINATE(r->kernel), TERMINATE(r->case_name), TERMINATE(r->note), TERMINATE(r->why);
    TERMINATE(r->dist), TERMINATE(r->binary), TERMINATE(r->schedule);
    TERMINATE(r->sizes), TERMINATE(r->cmp.first_buffer), TERMINATE(r->cmp.first_values);
    return 1;
}
