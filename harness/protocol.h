/* protocol.h: what a group's child tells its parent over the result pipe. BEGIN comes
 * before each case (so a crash is pinned to its case), RESULT after it, GROUP for a row about
 * the whole group (SKIP, an open or load ERROR). Records are fixed-size and the parent checks
 * every field of every one before using it: the child runs the kernel's native code in its
 * own address space and may hand back anything. */
#ifndef HB_PROTOCOL_H
#define HB_PROTOCOL_H

#include "report.h"

enum msg_type { MSG_BEGIN = 1, MSG_RESULT, MSG_GROUP };

struct msg {
    int type;
    int index; /* position in the group's case list */
    struct rep_result r;
};

int msg_send(int fd, const struct msg *m);
/* Reads one message: 1 read and valid, 0 end of stream, -1 timeout, -2 error or signal,
 * -3 a malformed message (why in err). n_cases bounds BEGIN and RESULT indices. */
int msg_recv(int fd, struct msg *m, int timeout_ms, int n_cases, struct hb_err *err);

#endif
