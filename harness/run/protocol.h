/* protocol.h: what a worker tells its parent over the result pipe (BEGIN before each case, so
 * a crash is pinned to it; RESULT after it; GROUP, a row about the whole group; DONE) and what
 * the parent sends over the command pipe (a group to run). Records are fixed-size and the
 * parent checks every field of every one before using it: the child runs the kernel's native
 * code in its own address space and may hand back anything. */
#ifndef HB_PROTOCOL_H
#define HB_PROTOCOL_H

#include "report.h"

enum msg_type { MSG_BEGIN = 1, MSG_RESULT, MSG_GROUP, MSG_DONE };
/* DONE's index when the worker exits after it (a failed load may leave its context unusable):
 * it must not be given another group. */
#define MSG_DONE_LEAVING 1

/* Child-side time since the worker's previous message, by phase (ms): where the harness's own
 * time goes (run.c prints the sums). */
enum msg_phase {
    PH_START, /* fork to the first instruction of the child */
    PH_OPEN,  /* loading the backend and opening the device */
    PH_LOAD,  /* loading (compiling) the kernel */
    PH_INIT,  /* host images: guard bands, poison, inputs */
    PH_ALLOC, /* device buffers */
    PH_UPLOAD,
    PH_LAUNCH, /* launch calls, device time included */
    PH_DOWNLOAD,
    PH_CHECK,   /* guards, inputs, padding, repeat equality */
    PH_COMPARE, /* the op's comparison with the references */
    PH_RELEASE,
    PH_COUNT
};

struct msg {
    int type;
    int group; /* the group's ordinal in the run */
    int index; /* position in the group's case list (BEGIN, RESULT) */
    struct rep_result r;
    double phase_ms[PH_COUNT];
    double device_ms; /* RESULT: device time of every launch (r.kernel_ms is the fastest one's) */
};

/* What the parent sends a worker: run group `group` from case `start` on. */
struct msg_cmd {
    int group, start;
};

const char *msg_phase_name(enum msg_phase p);

int msg_send(int fd, const struct msg *m);
/* Checks a message as read from a child: 1 valid, 0 not (why in err). It must belong to
 * `group` (of n_cases cases); string fields are terminated in place. */
int msg_valid(struct msg *m, int group, int n_cases, struct hb_err *err);

#endif
