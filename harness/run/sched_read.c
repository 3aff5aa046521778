/* SPDX-License-Identifier: MIT */
/* sched_read.c: the scheduler's reading side: a worker's result pipe, record by record. Each
 * record is checked (protocol.h's fields), then checked to be the one due from where the worker
 * is (supervise.c's sup_due: a worker sends only what it was asked for); after a LAUNCH come the
 * output bytes of the case's layout as the parent works it out, never a count the worker gives.
 * Anything else kills the worker: its case in flight becomes an ERROR row (supervise.c). What a
 * checked record means is for its caller (sched.c) and supervise.c to say: this file only reads. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scheduler.h"

static void sched_bad(struct sup_worker *w, const char *why)
{
    snprintf(w->bad_message, sizeof w->bad_message, "%.200s", why);
    child_kill(&w->ch);
    w->killed = 1;
}

/* One whole record in the worker's buffer, checked: 1 when it is to be handled now (in *m),
 * 0 when it is a LAUNCH whose output is read next, or when it was refused (w is killed). */
static int sched_record(struct sched *s, struct sup_worker *w, struct msg *m)
{
    memcpy(m, w->buf, sizeof *m);
    w->have = 0;
    struct hb_err err = {{0}};
    struct sup_group *sg = w->group >= 0 ? &s->sg[w->group] : NULL;
    if (!sg) {
        err_set(&err, "message of type %d from a worker with no group", m->type);
    } else if (msg_valid(m, w->group, sg->g->n_cases, &err) && sup_due(s->cx, sg, w, m, &err) &&
               (m->type != MSG_LAUNCH || vfy_accepts(&w->check, m, &err))) {
        if (m->type != MSG_LAUNCH || !w->check.out_bytes)
            return 1;
        w->launch = *m;
        w->out_need = w->check.out_bytes, w->out_have = 0;
        return 0;
    }
    sched_bad(w, err.msg);
    return 0;
}

int sched_read_record(struct sched *s, struct sup_worker *w, struct msg *m)
{
    while (w->ch.fd >= 0 && !w->bad_message[0]) {
        int output = w->out_need > 0;
        size_t room = sizeof w->buf - w->have;
        char *to = output ? vfy_dest(&w->check, w->out_have, &room) : (char *)w->buf + w->have;
        ssize_t n = read(w->ch.fd, to, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0) {
            close(w->ch.fd);
            w->ch.fd = -1;
            w->eof = 1, w->eof_at = now_ms();
            return 0;
        }
        if (!output) {
            w->have += (size_t)n;
            if (w->have == sizeof w->buf && sched_record(s, w, m))
                return 1;
        } else if ((w->out_have += (size_t)n) == w->out_need) {
            w->out_need = 0;
            *m = w->launch;
            return 1;
        }
    }
    return 0;
}
