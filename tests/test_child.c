/* SPDX-License-Identifier: MIT */
/* test_child.c: child processes (child.c, child_guard.c): every wait has a deadline and ends at
 * the child's own exit, whoever holds its output; a child runs in a session of its own, and
 * nothing it does can stop or signal its parent; a subreaper ends every descendant; a signal
 * handler can kill every child; a kill reaches what a child started, a child dies with its parent,
 * inherits no descriptor but its pipes, cannot read its parent's memory, and its output is
 * captured on request. The signals tried at the parent are harmless ones (SIGCONT,
 * SIGURG), so a filter that failed would not stop or kill the test. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "child.h"
#include "tutil.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif

/* Whether pid is gone or a zombie (killed, not yet reaped by whoever adopted it). */
static int gone(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *close = strrchr(buf, ')');
    return close && (close[2] == 'Z' || close[2] == 'X');
}

static void closes_output_and_sleeps(void *arg, const struct child_io *io)
{
    (void)arg, (void)io;
    close(1), close(2);
    sleep(30);
}

START_TEST(a_wait_has_a_deadline_after_the_output_closes)
{
    struct child c;
    struct child_opts o = {0, 1};
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_start(&c, &o, closes_output_and_sleeps, NULL, &err), 0);
    pid_t pid = c.pid;
    int status;
    double t0 = now_ms();
    ck_assert_int_eq(child_wait(&c, t0 + 1000, NULL, NULL, &status), -1);
    ck_assert_msg(now_ms() - t0 < 4000, "waited %.0f ms", now_ms() - t0);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    ck_assert_int_eq(c.pid, -1);
    ck_assert(gone(pid));
}
END_TEST

/* Forks a helper that holds stdout for 30 s, says its pid and returns at once. */
static void leaves_a_helper_holding_output(void *arg, const struct child_io *io)
{
    (void)arg;
    pid_t helper = fork();
    if (helper == 0) {
        sleep(30);
        _exit(0);
    }
    printf("helper started\n");
    fflush(stdout);
    child_write(io->result_fd, &helper, sizeof helper);
}

static void heard(void *arg, const char *bytes, size_t n)
{
    char *text = arg;
    strncat(text, bytes, n < 63 - strlen(text) ? n : 63 - strlen(text));
}

START_TEST(the_wait_ends_at_the_childs_exit_not_at_the_end_of_its_output)
{
    struct child c;
    struct child_opts o = {0, 1};
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_start(&c, &o, leaves_a_helper_holding_output, NULL, &err), 0);
    pid_t helper = 0;
    ck_assert_int_eq(child_read(c.fd, &helper, sizeof helper, 10000), 1);
    char text[64] = "";
    int status;
    double t0 = now_ms();
    ck_assert_int_eq(child_wait(&c, t0 + 20000, heard, text, &status), 0);
    ck_assert_msg(now_ms() - t0 < 3000, "waited %.0f ms", now_ms() - t0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_str_eq(text, "helper started\n");
    usleep(100 * 1000);
    ck_assert_msg(gone(helper), "the helper in the child's group was killed with it");
}
END_TEST

/* Each attempt's result: 0, or the errno it failed with. */
enum {
    TRY_CONT_PARENT,
    TRY_URG_EVERYONE,
    TRY_CONT_GROUP,
    TRY_TGKILL,
    TRY_SIGQUEUE,
    TRY_PIDFD,
    TRY_STOP_SELF,
    TRY_TSTP_SELF,
    TRY_SETOWN,
    TRY_SETSIG,
    TRY_UNREAP,
    TRY_CLONE_PARENT,
    TRY_CLONE3,
    TRY_PROBE_PARENT,
    TRY_SIGNAL_OWN_CHILD,
    TRY_OWN_SESSION,
    TRY_COUNT
};

static int attempt(long rc) { return rc < 0 ? errno : 0; }

static void tries_to_reach_its_parent(void *arg, const struct child_io *io)
{
    (void)arg;
    pid_t parent = getppid();
    int r[TRY_COUNT], fds[2] = {-1, -1};
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_code = SI_QUEUE;
    r[TRY_CONT_PARENT] = attempt(kill(parent, SIGCONT));
    r[TRY_URG_EVERYONE] = attempt(kill(-1, SIGURG));
    r[TRY_CONT_GROUP] = attempt(kill(-getpgid(parent), SIGCONT));
    r[TRY_TGKILL] = attempt(syscall(SYS_tgkill, parent, parent, SIGCONT));
    r[TRY_SIGQUEUE] = attempt(syscall(SYS_rt_sigqueueinfo, parent, SIGCONT, &info));
    r[TRY_PIDFD] = attempt(syscall(SYS_pidfd_open, parent, 0));
    r[TRY_STOP_SELF] = attempt(raise(SIGSTOP));
    r[TRY_TSTP_SELF] = attempt(kill(getpid(), SIGTSTP));
    r[TRY_SETOWN] = pipe(fds) ? -1 : attempt(fcntl(fds[0], F_SETOWN, parent));
    r[TRY_SETSIG] = attempt(fcntl(fds[0], F_SETSIG, SIGSTOP));
    r[TRY_UNREAP] = attempt(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0));
    long made = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
    if (made == 0)
        _exit(0);
    r[TRY_CLONE_PARENT] = attempt(made);
    r[TRY_CLONE3] = attempt(syscall(SYS_clone3, NULL, 0));
    r[TRY_PROBE_PARENT] = attempt(kill(parent, 0));
    pid_t own = fork();
    if (own == 0) {
        pause();
        _exit(0);
    }
    r[TRY_SIGNAL_OWN_CHILD] = attempt(kill(own, SIGUSR1));
    waitpid(own, NULL, 0);
    r[TRY_OWN_SESSION] = getsid(0) == getpid() && getpgrp() == getpid() ? 0 : -1;
    child_write(io->result_fd, r, sizeof r);
}

START_TEST(a_child_can_neither_stop_nor_signal_its_parent)
{
    struct child c;
    struct hb_err err = {{0}};
    struct child_opts o = {0, 0};
    ck_assert_int_eq(child_start(&c, &o, tries_to_reach_its_parent, NULL, &err), 0);
    int r[TRY_COUNT];
    ck_assert_int_eq(child_read(c.fd, r, sizeof r, 10000), 1);
    child_reap(&c);
    static const char *const refused[] = {
        "kill(parent, SIGCONT)", "kill(-1, SIGURG)",        "kill(-parent's group, SIGCONT)",
        "tgkill(parent)",        "rt_sigqueueinfo(parent)", "pidfd_open(parent)",
        "raise(SIGSTOP)",        "kill(self, SIGTSTP)",     "F_SETOWN parent",
        "F_SETSIG SIGSTOP",      "no longer a subreaper",   "clone(CLONE_PARENT)"};
    for (int i = 0; i <= TRY_CLONE_PARENT; i++)
        ck_assert_msg(r[i] == EPERM, "%s: %s", refused[i], r[i] ? strerror(r[i]) : "allowed");
    ck_assert_msg(r[TRY_CLONE3] == ENOSYS, "clone3: %s", r[TRY_CLONE3] ? strerror(r[TRY_CLONE3]) : "allowed");
    ck_assert_msg(r[TRY_PROBE_PARENT] == 0, "kill(parent, 0) answers: %s", strerror(r[TRY_PROBE_PARENT]));
    ck_assert_msg(r[TRY_SIGNAL_OWN_CHILD] == 0, "its own child: %s", strerror(r[TRY_SIGNAL_OWN_CHILD]));
    ck_assert_msg(r[TRY_OWN_SESSION] == 0, "a session and group of its own");
}
END_TEST

/* A subreaper whose child left its session, forked and exited: the grandchild is ended too. */
static void leaves_a_grandchild(void *arg, const struct child_io *io)
{
    (void)arg;
    child_adopt_orphans();
    int p[2];
    if (pipe(p))
        _exit(1);
    if (fork() == 0) {
        setsid();
        pid_t grandchild = fork();
        if (grandchild == 0) {
            sleep(30);
            _exit(0);
        }
        child_write(p[1], &grandchild, sizeof grandchild);
        _exit(0);
    }
    pid_t grandchild = 0;
    child_read(p[0], &grandchild, sizeof grandchild, 10000);
    int ended = child_end_descendants();
    int r[3] = {grandchild, ended, waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD};
    child_write(io->result_fd, r, sizeof r);
}

START_TEST(a_subreaper_ends_every_descendant)
{
    struct child c;
    struct hb_err err = {{0}};
    struct child_opts o = {0, 0};
    ck_assert_int_eq(child_start(&c, &o, leaves_a_grandchild, NULL, &err), 0);
    int r[3];
    ck_assert_int_eq(child_read(c.fd, r, sizeof r, 20000), 1);
    child_reap(&c);
    ck_assert_int_gt(r[0], 0);
    ck_assert_msg(r[1] >= 1, "ended %d processes", r[1]);
    ck_assert_msg(r[2], "it has no child left");
    ck_assert(gone(r[0]));
    ck_assert_int_eq(child_end_descendants(), 0); /* not a subreaper here: nothing */
}
END_TEST

static void sleeps(void *arg, const struct child_io *io)
{
    (void)arg, (void)io;
    sleep(30);
}

START_TEST(a_signal_handler_can_kill_every_child)
{
    struct child c[2];
    struct child_opts o = {0, 0};
    struct hb_err err = {{0}};
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(child_start(&c[i], &o, sleeps, NULL, &err), 0);
    child_kill_children_now();
    for (int i = 0; i < 2; i++) {
        int status;
        ck_assert_int_eq(child_wait(&c[i], now_ms() + 5000, NULL, NULL, &status), 0);
        ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
}
END_TEST

static void guards_many_threads(void *arg, const struct child_io *io)
{
    (void)arg;
    struct child_protected p;
    child_protect_self(&p);
    for (p.n_tids = 0; p.n_tids < CHILD_PROTECTED_TIDS; p.n_tids++)
        p.tids[p.n_tids] = getppid();
    int r[2] = {child_guard(&p), attempt(kill(getppid(), SIGCONT))};
    child_write(io->result_fd, r, sizeof r);
}

START_TEST(the_filter_fits_the_most_threads_it_protects)
{
    struct child c;
    struct child_opts o = {0, 0};
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_start(&c, &o, guards_many_threads, NULL, &err), 0);
    int r[2];
    ck_assert_int_eq(child_read(c.fd, r, sizeof r, 10000), 1);
    child_reap(&c);
    ck_assert_int_eq(r[0], 0);
    ck_assert_int_eq(r[1], EPERM);
}
END_TEST

static void pipe_pair(int fds[2]) { ck_assert_int_eq(pipe(fds), 0); }

static void sleep_forever_with_a_grandchild(void *arg, int fd)
{
    pid_t *seen = arg;
    (void)seen;
    pid_t g = fork();
    if (g == 0)
        for (;;)
            pause();
    child_write(fd, &g, sizeof g);
    for (;;)
        pause();
}

START_TEST(child_kill_reaches_what_the_child_started)
{
    struct child ch;
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_spawn(&ch, sleep_forever_with_a_grandchild, NULL, &err), 0);
    pid_t grandchild = 0;
    ck_assert_int_eq(child_read(ch.fd, &grandchild, sizeof grandchild, 5000), 1);
    ck_assert(!gone(grandchild));
    child_kill(&ch);
    int status = child_reap(&ch);
    ck_assert(WIFSIGNALED(status));
    for (int i = 0; i < 100 && !gone(grandchild); i++)
        usleep(10000);
    ck_assert(gone(grandchild));
}
END_TEST

/* A parent that dies while its child hangs: the child must not outlive it. */
START_TEST(child_dies_with_its_parent)
{
    int fds[2];
    pipe_pair(fds);
    pid_t parent = fork();
    if (parent == 0) {
        struct child ch;
        struct hb_err err = {{0}};
        if (child_spawn(&ch, sleep_forever_with_a_grandchild, NULL, &err))
            _exit(1);
        pid_t ids[2] = {ch.pid, 0};
        child_read(ch.fd, &ids[1], sizeof ids[1], 5000);
        child_write(fds[1], ids, sizeof ids);
        _exit(0); /* as SIGKILL would: no clean-up */
    }
    pid_t ids[2] = {0, 0};
    ck_assert_int_eq(child_read(fds[0], ids, sizeof ids, 5000), 1);
    pid_t child = ids[0], grandchild = ids[1];
    waitpid(parent, NULL, 0);
    for (int i = 0; i < 200 && !gone(child); i++)
        usleep(10000);
    ck_assert_msg(gone(child), "child %d outlived its parent", (int)child);
    /* And what the child started goes with it. */
    for (int i = 0; i < 200 && !gone(grandchild); i++)
        usleep(10000);
    ck_assert_msg(gone(grandchild), "the child's own child outlived it");
    close(fds[0]), close(fds[1]);
}
END_TEST

/* In the child: every descriptor from 5 up is closed, stdin is /dev/null; one byte says so. */
static void report_descriptors(void *arg, int fd)
{
    (void)arg;
    char ok = 1;
    for (int d = 5; d < 1024; d++)
        if (d != fd && fcntl(d, F_GETFD) != -1)
            ok = 0;
    struct stat in, null;
    if (fstat(0, &in) || stat("/dev/null", &null) || in.st_rdev != null.st_rdev)
        ok = 0;
    child_write(fd, &ok, 1);
}

/* Which ways into the parent's memory worked: bit 0 process_vm_readv, bit 1 /proc/PID/mem. */
static void read_the_parent(void *arg, int fd)
{
    long got = 0;
    struct iovec local = {&got, sizeof got}, remote = {arg, sizeof got};
    int seen = process_vm_readv(getppid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof got;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
    int mem = open(path, O_RDONLY);
    if (mem >= 0 && pread(mem, &got, sizeof got, (off_t)(uintptr_t)arg) == (ssize_t)sizeof got)
        seen |= 2;
    child_write(fd, &seen, sizeof seen);
}

/* What a kernel in a worker cannot do, even run as root: read the harness's memory. */
START_TEST(child_cannot_read_its_parents_memory)
{
    static volatile long secret = 0x5ec7e7;
    struct child c;
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_spawn(&c, read_the_parent, (void *)&secret, &err), 0);
    int seen = -1;
    ck_assert_int_eq(child_read(c.fd, &seen, sizeof seen, 10000), 1);
    child_reap(&c);
    ck_assert_int_eq(seen, 0);
    ck_assert_int_eq(secret, 0x5ec7e7);
}
END_TEST

START_TEST(child_inherits_no_descriptor_but_its_pipe)
{
    /* A report file the parent has open, as --json would be. */
    char *dir = t_tmpdir();
    char *path = t_write(dir, "report.jsonl", "");
    int report = open(path, O_WRONLY | O_APPEND);
    ck_assert_int_ge(report, 0);
    int high = fcntl(report, F_DUPFD, 40);
    ck_assert_int_ge(high, 40);
    struct child ch;
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_spawn(&ch, report_descriptors, NULL, &err), 0);
    char ok = 0;
    ck_assert_int_eq(child_read(ch.fd, &ok, 1, 5000), 1);
    child_reap(&ch);
    ck_assert_msg(ok == 1, "the child saw an inherited descriptor or a stdin other than /dev/null");
    close(report), close(high);
    free(path);
    t_rmtree(dir);
}
END_TEST

static void print_both(void *arg, const struct child_io *io)
{
    (void)arg, (void)io;
    fputs("to stdout\n", stdout);
    fflush(stdout);
    fputs("to stderr\n", stderr);
}

START_TEST(child_output_is_captured_for_the_parent)
{
    struct child ch;
    struct child_opts opts = {0, 1};
    struct hb_err err = {{0}};
    ck_assert_int_eq(child_start(&ch, &opts, print_both, NULL, &err), 0);
    char text[256] = "";
    size_t got = 0;
    ssize_t n;
    while (got < sizeof text - 1 && (n = read(ch.out_fd, text + got, sizeof text - 1 - got)) > 0)
        got += (size_t)n;
    child_reap(&ch);
    ck_assert_msg(strstr(text, "to stdout\n") && strstr(text, "to stderr\n"), "captured: %s", text);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("child");
    TCase *t = tcase_create("child");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, a_wait_has_a_deadline_after_the_output_closes);
    tcase_add_test(t, the_wait_ends_at_the_childs_exit_not_at_the_end_of_its_output);
    tcase_add_test(t, a_child_can_neither_stop_nor_signal_its_parent);
    tcase_add_test(t, a_subreaper_ends_every_descendant);
    tcase_add_test(t, a_signal_handler_can_kill_every_child);
    tcase_add_test(t, the_filter_fits_the_most_threads_it_protects);
    tcase_add_test(t, child_kill_reaches_what_the_child_started);
    tcase_add_test(t, child_dies_with_its_parent);
    tcase_add_test(t, child_inherits_no_descriptor_but_its_pipe);
    tcase_add_test(t, child_cannot_read_its_parents_memory);
    tcase_add_test(t, child_output_is_captured_for_the_parent);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
