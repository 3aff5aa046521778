/* SPDX-License-Identifier: MIT */
/* child.c: see child.h. */
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The parent is gone: take the whole group along (what a kernel forked too), since a death
 * signal reaches only this process. */
static void child_on_parent_death(int sig)
{
    (void)sig;
    kill(0, SIGKILL);
}

/* Moves fd to `to` (which must be free or fd itself); returns `to`, or -1. */
static int child_move(int fd, int to)
{
    if (fd < 0 || fd == to)
        return fd;
    if (dup2(fd, to) < 0)
        return -1;
    close(fd);
    return to;
}

/* Every descriptor from `from` up is closed: report files, other children's pipes, whatever
 * a library left open. close_range where the kernel has it, else one by one. */
static void child_close_from(int from)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)from, ~0u, 0u) == 0)
        return;
#endif
    struct rlimit rl;
    long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
    for (long fd = from; fd < max && fd < 1048576; fd++)
        close((int)fd);
}

/* No capability, now or after an exec (the bounding set goes too): run as root, as in a
 * container, a kernel could otherwise read or trace its non-dumpable parent (CAP_SYS_PTRACE)
 * and anything else root reaches. Without privileges the calls fail harmlessly. */
static void child_drop_capabilities(void)
{
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    memset(none, 0, sizeof none);
    syscall(SYS_capset, &head, none);
}

/* The child's side before its body: its own session (so no terminal's job control reaches it
 * and its group holds whatever it starts), death with the parent, no capability, stdin from
 * /dev/null, stdout and stderr captured when asked, no descriptor but its pipes (3 and 4), and,
 * last, the filter that keeps it and all it starts from signalling the parent (child_guard.c). */
static void child_setup(const struct child_protected *parent, int out_w, struct child_io *io)
{
    setsid();
    child_drop_capabilities();
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGTERM, child_on_parent_death);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    /* Checked again in case the parent died before prctl. */
    if (getppid() != parent->pid)
        kill(0, SIGKILL);
    /* The pipes out of the way of 0 to 4 first, then stdin, stdout and stderr, then the
     * pipes into 3 and 4. */
    int r = io->result_fd >= 0 ? fcntl(io->result_fd, F_DUPFD, 5) : -1;
    int c = io->cmd_fd >= 0 ? fcntl(io->cmd_fd, F_DUPFD, 5) : -1;
    if (io->result_fd >= 0)
        close(io->result_fd);
    if (io->cmd_fd >= 0)
        close(io->cmd_fd);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0 && devnull != 0)
        dup2(devnull, 0), close(devnull);
    if (out_w >= 0) {
        dup2(out_w, 1), dup2(out_w, 2);
        if (out_w > 2)
            close(out_w);
    }
    io->result_fd = child_move(r, 3);
    io->cmd_fd = child_move(c, 4);
    child_close_from(5);
    child_guard(parent);
}

static void child_close_pair(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
}

int child_start(struct child *c, const struct child_opts *o, void (*body)(void *arg, const struct child_io *io),
                void *arg, struct hb_err *err)
{
    int res[2] = {-1, -1}, cmd[2] = {-1, -1}, out[2] = {-1, -1};
    c->pid = -1, c->fd = c->cmd_fd = c->out_fd = -1;
    if (pipe(res) || (o->commands && pipe(cmd)) || (o->capture && pipe(out))) {
        err_set(err, "pipe: %s", strerror(errno));
        child_close_pair(res), child_close_pair(cmd), child_close_pair(out);
        return -1;
    }
    struct child_protected parent;
    child_protect_self(&parent);
    /* Its children run untrusted code: none may read this process's memory (/proc/PID/mem,
     * ptrace, process_vm_readv), which a same-user process otherwise may. Children inherit it. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        err_set(err, "fork: %s", strerror(errno));
        child_close_pair(res), child_close_pair(cmd), child_close_pair(out);
        return -1;
    }
    if (pid == 0) {
        close(res[0]);
        if (cmd[1] >= 0)
            close(cmd[1]);
        if (out[0] >= 0)
            close(out[0]);
        struct child_io io = {res[1], cmd[0]};
        child_setup(&parent, out[1], &io);
        body(arg, &io);
        _exit(0);
    }
    /* The child makes its session and group itself (setsid fails in a group leader, so this
     * side may not make the group first); a kill sent before reaches it by its pid. */
    close(res[1]);
    if (cmd[0] >= 0)
        close(cmd[0]);
    if (out[1] >= 0)
        close(out[1]);
    /* The parent's ends stay out of later children and exec'd tools. */
    int ends[3] = {res[0], cmd[1], out[0]};
    for (int i = 0; i < 3; i++)
        if (ends[i] >= 0)
            fcntl(ends[i], F_SETFD, FD_CLOEXEC);
    c->pid = pid, c->fd = res[0], c->cmd_fd = cmd[1], c->out_fd = out[0];
    return 0;
}

struct child_plain {
    void (*body)(void *arg, int fd);
    void *arg;
};

static void child_plain_body(void *arg, const struct child_io *io)
{
    struct child_plain *p = arg;
    p->body(p->arg, io->result_fd);
}

int child_spawn(struct child *c, void (*body)(void *arg, int fd), void *arg, struct hb_err *err)
{
    struct child_plain p = {body, arg};
    struct child_opts o = {0, 0};
    return child_start(c, &o, child_plain_body, &p, err);
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
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
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

void child_close_pipes(struct child *c)
{
    int *fds[3] = {&c->fd, &c->cmd_fd, &c->out_fd};
    for (int i = 0; i < 3; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

/* What the child printed and is there now, without waiting: up to its end, or 256 KiB (a
 * process it started may go on writing). */
static void child_take_output(struct child *c, void (*on_output)(void *, const char *, size_t), void *arg, int wait_ms)
{
    char buf[4096];
    for (int reads = 0; c->out_fd >= 0 && reads < 64; reads++) {
        struct pollfd p = {c->out_fd, POLLIN, 0};
        if (poll(&p, 1, wait_ms) <= 0)
            return;
        ssize_t n = read(c->out_fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            close(c->out_fd);
            c->out_fd = -1;
            return;
        }
        if (on_output)
            on_output(arg, buf, (size_t)n);
        wait_ms = 0;
    }
}

int child_wait(struct child *c, double deadline, void (*on_output)(void *arg, const char *bytes, size_t n), void *arg,
               int *status)
{
    *status = 0;
    if (c->pid <= 0) {
        child_close_pipes(c);
        return 0;
    }
    /* Its exit makes a pidfd readable; without pidfds (Linux < 5.3), a look every 10 ms. */
    int pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0), timed_out = 0;
    for (;;) {
        pid_t got = waitpid(c->pid, status, WNOHANG);
        if (got == c->pid)
            break;
        if (got < 0 && errno != EINTR) {
            *status = 127 << 8; /* reaped by someone else: its end is unknown, never a success */
            break;
        }
        double left = deadline - now_ms();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p[2] = {{c->out_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
        int wait_ms = left > 1e9 ? 1000000000 : (int)left + 1;
        if (poll(p, 2, pidfd >= 0 || wait_ms < 10 ? wait_ms : 10) > 0 && p[0].revents)
            child_take_output(c, on_output, arg, 0);
    }
    if (timed_out) {
        child_kill(c);
        while (waitpid(c->pid, status, 0) < 0 && errno == EINTR)
            ;
    } else {
        child_take_output(c, on_output, arg, 0);
    }
    if (pidfd >= 0)
        close(pidfd);
    child_close_pipes(c);
    /* Whatever the child started (a forking kernel, a compiler's own children) goes with it. */
    kill(-c->pid, SIGKILL);
    c->pid = -1;
    return timed_out ? -1 : 0;
}

int child_reap(struct child *c)
{
    int status;
    child_wait(c, now_ms() + CHILD_REAP_GRACE_MS, NULL, NULL, &status);
    return status;
}

static pid_t child_adopter;

void child_adopt_orphans(void)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
        child_adopter = getpid();
}

/* The parent pid and state in /proc/PID/stat: the fields after the command's closing
 * parenthesis (a command may hold spaces and parentheses itself). */
static pid_t child_parent_of(const char *pid, char *state)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%.40s/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    char *close = strrchr(buf, ')');
    int ppid = -1;
    return close && sscanf(close + 1, " %c %d", state, &ppid) == 2 ? (pid_t)ppid : -1;
}

/* SIGKILL to every child of this process; returns how many of them were running and not seen
 * before (seen: n_seen of them, at most 256 remembered). */
static int child_kill_each(pid_t *seen, int *n_seen)
{
    DIR *d = opendir("/proc");
    int fresh = 0;
    pid_t self = getpid();
    for (struct dirent *e; d && (e = readdir(d));) {
        char state = 0;
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || child_parent_of(e->d_name, &state) != self)
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        int known = 0;
        for (int i = 0; i < *n_seen && !known; i++)
            known = seen[i] == pid;
        if (!known && state != 'Z') {
            fresh++;
            if (*n_seen < 256)
                seen[(*n_seen)++] = pid;
        }
        kill(pid, SIGKILL);
    }
    if (d)
        closedir(d);
    return fresh;
}

int child_end_descendants(void)
{
    if (child_adopter != getpid())
        return 0;
    pid_t seen[256];
    int n_seen = 0, ended = 0;
    /* A killed child's own children come to this process (their subreaper): round after round
     * until none is left. */
    for (;;) {
        pid_t pid;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (pid < 0 && errno == ECHILD)
            return ended;
        ended += child_kill_each(seen, &n_seen);
        usleep(1000);
    }
}

void child_kill_orphans(void)
{
    /* Only the adopting process: a forked child that exits through atexit kills nothing. */
    (void)child_end_descendants();
}

/* Async-signal-safe pieces of child_kill_children_now: no stdio, no allocation. */
static pid_t child_number(const char *s)
{
    long v = 0;
    for (; *s >= '0' && *s <= '9' && v < 1 << 30; s++)
        v = v * 10 + (*s - '0');
    return *s ? -1 : (pid_t)v;
}

static pid_t child_parent_now(const char *pid)
{
    char path[64] = "/proc/", buf[512];
    size_t at = 6, n = strlen(pid);
    if (n > 20)
        return -1;
    memcpy(path + at, pid, n), at += n;
    memcpy(path + at, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (got <= 0)
        return -1;
    buf[got] = 0;
    char *close = strrchr(buf, ')');
    if (!close || close[1] != ' ' || !close[2] || close[3] != ' ')
        return -1;
    char *end = close + 4;
    while (*end >= '0' && *end <= '9')
        end++;
    *end = 0;
    return child_number(close + 4);
}

void child_kill_children_now(void)
{
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    pid_t self = getpid();
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            struct dirent64 *e = (struct dirent64 *)(buf + off);
            off += e->d_reclen;
            pid_t pid = child_number(e->d_name);
            if (pid > 0 && child_parent_now(e->d_name) == self)
                kill(-pid, SIGKILL), kill(pid, SIGKILL);
        }
    close(dir);
}
