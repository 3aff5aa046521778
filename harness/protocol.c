/* protocol.c: see protocol.h. */
#include "protocol.h"

#include <string.h>

#include "child.h"

int msg_send(int fd, const struct msg *m) { return child_write(fd, m, sizeof *m); }

/* Every string field ends inside its array, so no writer reads past it. */
#define TERMINATE(field) ((field)[sizeof(field) - 1] = 0)

static int msg_valid(struct msg *m, int n_cases, struct hb_err *err)
{
    struct rep_result *r = &m->r;
    if (m->type != MSG_BEGIN && m->type != MSG_RESULT && m->type != MSG_GROUP) {
        err_set(err, "message of unknown type %d", m->type);
        return 0;
    }
    if (m->type != MSG_GROUP && (m->index < 0 || m->index >= n_cases)) {
        err_set(err, "case index %d outside the group's %d cases", m->index, n_cases);
        return 0;
    }
    if (m->type == MSG_BEGIN)
        return 1;
    if ((unsigned)r->verdict >= V_COUNT || (unsigned)r->op >= OP_COUNT || r->cmp.classes >> CLS_COUNT) {
        err_set(err, "result with verdict %d, op %d, classes 0x%x out of range", (int)r->verdict, (int)r->op,
                r->cmp.classes);
        return 0;
    }
    TERMINATE(r->backend), TERMINATE(r->device), TERMINATE(r->driver), TERMINATE(r->lang);
    TERMINATE(r->kernel), TERMINATE(r->case_name), TERMINATE(r->note), TERMINATE(r->why);
    TERMINATE(r->dist), TERMINATE(r->binary), TERMINATE(r->schedule);
    return 1;
}

int msg_recv(int fd, struct msg *m, int timeout_ms, int n_cases, struct hb_err *err)
{
    int rc = child_read(fd, m, sizeof *m, timeout_ms);
    if (rc != 1)
        return rc;
    return msg_valid(m, n_cases, err) ? 1 : -3;
}
