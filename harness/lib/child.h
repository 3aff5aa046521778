/* SPDX-License-Identifier: MIT */
/* child.h: the one way the harness starts a child process and talks to it (run, bench, the
 * device probe). A child runs in its own process group, dies with its parent, holds no
 * capability and inherits no descriptor but its pipes (stdin is /dev/null, stdout and stderr
 * captured on request), so killing it reaches whatever it started and a kernel cannot write
 * into the parent's reports; a parent that has started one is not dumpable, so no child reads
 * its memory. It knows nothing of kernels or results: callers send their own records. */
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
/* Closes the pipes, reaps the child and kills what is left of its group; returns the
 * child's wait status. */
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

#endif
