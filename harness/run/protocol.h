/* SPDX-License-Identifier: MIT */
/* protocol.h: what a worker tells its parent over the result pipe and what the parent sends
 * over the command pipe (a group to run). A worker reports what it saw, never a verdict or a
 * figure one is made of: LOAD before a kernel's code can first run in its process (the
 * emulator's: no SKIP is believed after it), BEGIN before each case (so a crash is pinned to
 * it), LAUNCH after each launch, followed by that launch's output as it came back, byte for
 * byte (the parent compares it with references no worker holds: verify.c), RESULT when the case
 * is over, GROUP when the group cannot run at all, DONE. Records are fixed-size; the parent checks every field of every
 * one and that it is the record due next, and reads an output of the size it works out itself:
 * the child runs the kernel's native code in its own address space and may send anything. */
#ifndef HB_PROTOCOL_H
#define HB_PROTOCOL_H

#include "report.h"

enum msg_type { MSG_BEGIN = 1, MSG_RESULT, MSG_GROUP, MSG_DONE, MSG_LAUNCH, MSG_LOAD };
/* DONE's index when the worker exits after it (a failed load may leave its context unusable):
 * it must not be given another group. */
#define MSG_DONE_LEAVING 1
/* The classes a LAUNCH may say it saw: a guard band or an access outside a buffer's data, an
 * input changed. A RESULT may say CLS_API (a backend call failed); nothing else is a child's. */
#define MSG_SEEN (CLS_OOB | CLS_OOB_READ | CLS_INPUT_MODIFIED)

/* Time by phase (ms): where the harness's own time goes (run.c prints the sums). Children send
 * theirs since their previous record; PH_COMPARE is the parent's own. */
enum msg_phase {
    PH_START, /* fork to the first instruction of the child */
    PH_OPEN,  /* loading the backend and opening the device */
    PH_LOAD,  /* loading (compiling) the kernel */
    PH_INIT,  /* host images: guard bands, poison, inputs */
    PH_ALLOC, /* device buffers */
    PH_UPLOAD,
    PH_LAUNCH, /* launch calls, device time included */
    PH_DOWNLOAD,
    PH_CHECK,   /* guard bands and inputs */
    PH_SEND,    /* outputs to the parent (waiting for it to read them included) */
    PH_COMPARE, /* in the parent: padding, comparison with the references, repeats */
    PH_RELEASE,
    PH_COUNT
};

struct msg {
    int type;
    int group;                    /* the group's ordinal in the run */
    int index;                    /* position in the group's case list (BEGIN, LAUNCH, RESULT) */
    int launch;                   /* LAUNCH: which launch of the case, 0 first; RESULT: how many sent an output */
    int rc;                       /* GROUP: what opening the device or loading the kernel returned (HB_UNSUPPORTED,
                                     HB_ERROR) */
    unsigned seen;                /* LAUNCH: classes seen at it (MSG_SEEN); RESULT: CLS_API or 0 */
    long guard_arg, guard_offset; /* LAUNCH (only): the first buffer with a damaged guard band
                                     (-1: none) and the damage's byte offset from its data */
    long fault_arg, fault_offset; /* LAUNCH 0: the buffer and offset of the first write outside
                                     a buffer's data that the backend saw (-1: none, or none
                                     near a buffer) */
    double kernel_ms;             /* LAUNCH: its device time */
    double child_ms;              /* RESULT: the whole case in the child */
    double phase_ms[PH_COUNT];
    char why[1024];    /* RESULT, GROUP: the backend's words (a failed call, faults, an empty grid) */
    char binary[1024]; /* RESULT: which binary ran (the backend's kernel_origin), "" when not said */
};

/* What the parent sends a worker: run group `group` from case `start` on. */
struct msg_cmd {
    int group, start;
};

const char *msg_phase_name(enum msg_phase p);

int msg_send(int fd, const struct msg *m);
/* A GROUP record for group `group` (its ordinal) that cannot run: rc HB_UNSUPPORTED (the
 * parent's SKIP), anything else HB_ERROR (its ERROR), with the backend's words. */
void msg_group(struct msg *m, int group, int rc, const char *why);
/* Checks a record as read from a child: 1 valid, 0 not (why in err). It must belong to `group`
 * (of n_cases cases); string fields are terminated in place. Whether it is the record due
 * next is the scheduler's check, and whether its buffers are the case's, verify.c's. */
int msg_valid(struct msg *m, int group, int n_cases, struct hb_err *err);

#endif
