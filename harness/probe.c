/* probe.c: see probe.h. */
#include "probe.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "util.h"

#define PROBE_TIMEOUT_MS 120000

int prb_write_full(int fd, const void *buf, size_t len)
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

/* Reads exactly len bytes, waiting at most timeout_ms for each chunk: 1 read, 0 EOF,
 * -1 timeout, -2 error. */
int prb_read_full(int fd, void *buf, size_t len, int timeout_ms)
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


static void probe_child(const char *name, int fd)
{
    struct probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.built = 1;
    struct hb_err err = {{0}};
    const struct hb_backend *be = ldr_open(name, &err);
    if (!be) {
        p.count = -1;
        snprintf(p.err, sizeof p.err, "%.500s", err.msg);
    } else {
        snprintf(p.langs, sizeof p.langs, "%s", be->langs);
        if (be->vendor_sgemm && be->vendor_name)
            snprintf(p.vendor, sizeof p.vendor, "%s", be->vendor_name);
        p.count = be->list_devices(p.dev, MAX_DEVICES, p.err, sizeof p.err);
        if (p.count > MAX_DEVICES)
            p.count = MAX_DEVICES;
    }
    prb_write_full(fd, &p, sizeof p);
    _exit(0);
}

void prb_probe(const char *name, struct probe *p)
{
    memset(p, 0, sizeof p[0]);
    snprintf(p->name, sizeof p->name, "%s", name);
    if (!ldr_is_built(name)) {
        p->count = -1;
        snprintf(p->err, sizeof p->err, "not built (its toolchain was missing at build time: see `make`)");
        return;
    }
    int fds[2];
    if (pipe(fds)) {
        p->count = -1;
        snprintf(p->err, sizeof p->err, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        probe_child(name, fds[1]);
    }
    close(fds[1]);
    int rc = pid < 0 ? -2 : prb_read_full(fds[0], p, sizeof *p, PROBE_TIMEOUT_MS);
    close(fds[0]);
    if (pid > 0) {
        if (rc != 1)
            kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    if (rc != 1) {
        memset(p, 0, sizeof p[0]);
        snprintf(p->name, sizeof p->name, "%s", name);
        p->count = -1;
        snprintf(p->err, sizeof p->err, "device probe %s", rc == -1 ? "hung" : "crashed");
    }
    p->built = 1;
}

