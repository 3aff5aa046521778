/* SPDX-License-Identifier: MIT */
/* child.h: the one way the harness starts a child process, talks to it and waits for it (run,
 * bench, the device probe, references and oracles). A child runs in its own session and process
 * group, dies with its parent, holds no capability, inherits no descriptor but its pipes (stdin
 * is /dev/null, stdout and stderr captured on request) and cannot signal the harness (a seccomp
 * filter, child_guard.c), so killing it reaches whatever it started, a kernel cannot write into
 * the parent's reports and nothing it starts can stop the parent; a parent that has started one
 * is not dumpable, so no child reads its memory. Every wait has a deadline. It knows nothing of
 * kernels or results: callers send their own records. */
#ifndef HB_CHILD_H
#define HB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "util.h"

struct child {
    pid_t pid;
    int fd;     /* read end of the child's result pipe, -1 once closed */
    int cmd_fd; /* write end of its command pipe, -1 when it has none or once closed */
    int out_fd; /* read end of its stdout and stderr when captured, else -1 */
};

/* What a child's body gets: its end of each pipe (-1 when it has none). */
struct child_io {
    int result_fd, cmd_fd;
};

struct child_opts {
    int commands; /* a pipe from parent to child (struct child.cmd_fd) */
    int capture;  /* the child's stdout and stderr into a pipe the parent reads (out_fd) */
};

/* Forks; in the child, body(arg, io) runs and the process exits with status 0 if body
 * returns. Returns 0, or -1 with err when no child could start. */
int child_start(struct child *c, const struct child_opts *o, void (*body)(void *arg, const struct child_io *io),
                void *arg, struct hb_err *err);
/* child_start with only a result pipe; body gets its write end. */
int child_spawn(struct child *c, void (*body)(void *arg, int fd), void *arg, struct hb_err *err);

/* Reads exactly len bytes, waiting at most timeout_ms for each chunk: 1 read, 0 EOF,
 * -1 timeout, -2 error or interrupted by a signal. */
int child_read(int fd, void *buf, size_t len, int timeout_ms);
/* Writes all of buf; 0, or -1 when the reader is gone. */
int child_write(int fd, const void *buf, size_t len);

/* SIGKILL to the child's whole process group. */
void child_kill(const struct child *c);
/* Waits until deadline (now_ms's clock) for the child's own exit, not for its pipes to close (a
 * process it started may hold them), handing what it prints (out_fd) to on_output as it comes
 * (on_output may be NULL); then closes the pipes, kills what is left of its group and stores its
 * wait status. 0, or -1 when the deadline passed first: the child was killed. */
int child_wait(struct child *c, double deadline, void (*on_output)(void *arg, const char *bytes, size_t n), void *arg,
               int *status);
/* child_wait for a child that has said all it will: it has CHILD_REAP_GRACE_MS to exit before it
 * is killed. Returns its wait status. */
#define CHILD_REAP_GRACE_MS 5000
int child_reap(struct child *c);
/* Closes the parent's ends of the pipes (child_reap does it too). */
void child_close_pipes(struct child *c);

/* A kernel that forks and calls setsid() leaves its group, so killing the group misses it:
 * child_adopt_orphans makes this process the one such escapees are reparented to (a Linux
 * child subreaper), and child_kill_orphans, at the end, kills and reaps every child it still
 * has. Call the first before any child starts; the second, at exit (atexit), acts in that
 * process alone. */
void child_adopt_orphans(void);
void child_kill_orphans(void);
/* In a process that called child_adopt_orphans: kills every descendant it has, those it adopts
 * meanwhile included, until none is left. Returns how many were running. */
int child_end_descendants(void);
/* From a signal handler (async-signal-safe): SIGKILL to every child of this process and its
 * group (a compiler and what it started, a reference), before an _exit that runs no atexit. */
void child_kill_children_now(void);

/* The harness process a child may not signal: its pid, its process group and the threads it
 * has when the child is made (a stop signal to any thread stops the process). */
#define CHILD_PROTECTED_TIDS 64
struct child_protected {
    pid_t pid, group;
    pid_t tids[CHILD_PROTECTED_TIDS];
    int n_tids;
};
/* This process, as a child made now will protect it. */
void child_protect_self(struct child_protected *p);
/* Installs, in the calling process, the seccomp filter that every process it becomes or starts
 * keeps: kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and pidfd_open aimed at p (or a
 * thread of it), at p's group or at every process (-1), and F_SETOWN to them, fail with EPERM;
 * so does any stop signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) to anyone, including through
 * pidfd_send_signal and F_SETSIG, and giving up being a subreaper or clone(CLONE_PARENT); clone3
 * fails with ENOSYS (its flags are out of a filter's sight; the C library falls back to clone).
 * Everything else is allowed. Sets no_new_privs. 0, or -1 where seccomp is not available (the
 * process goes on unfiltered). child_start calls it in each child for its parent; a shard, which
 * is started otherwise, for the run above it. */
int child_guard(const struct child_protected *p);

#endif
