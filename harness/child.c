/* child.c: see child.h. */
#include "child.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The parent is gone: take the whole group along (what a kernel forked too), since a death
 * signal reaches only this process. */
static void child_on_parent_death(int sig)
{
    (void)sig;
    kill(0, SIGKILL);
}

int child_spawn(struct child *c, void (*body)(void *arg, int fd), void *arg, struct hb_err *err)
{
    int fds[2];
    c->pid = -1, c->fd = -1;
    if (pipe(fds)) {
        err_set(err, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        err_set(err, "fork: %s", strerror(errno));
        close(fds[0]), close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        /* Own group, so one kill reaches what a kernel or a compiler forks; the group dies
         * with the parent (checked again in case the parent died before prctl). */
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, child_on_parent_death);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            kill(0, SIGKILL);
        body(arg, fds[1]);
        _exit(0);
    }
    /* Also from this side: the group must exist before a kill is sent to it. */
    setpgid(pid, pid);
    close(fds[1]);
    c->pid = pid, c->fd = fds[0];
    return 0;
}

int child_write(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

int child_read(int fd, void *buf, size_t len, int timeout_ms)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int rc = poll(&pfd, 1, timeout_ms);
        if (rc < 0) /* EINTR too: a signal means the caller should look at its flags */
            return -2;
        if (rc == 0)
            return -1;
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -2;
        if (n == 0)
            return got ? -2 : 0;
        got += (size_t)n;
    }
    return 1;
}

void child_kill(const struct child *c)
{
    if (c->pid <= 0)
        return;
    kill(-c->pid, SIGKILL);
    kill(c->pid, SIGKILL);
}

int child_reap(struct child *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    int status = 0;
    if (c->pid > 0) {
        while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
            ;
        /* Whatever the child started (a forking kernel, a compiler) goes with it. */
        kill(-c->pid, SIGKILL);
    }
    c->pid = -1;
    return status;
}
