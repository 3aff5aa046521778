/* SPDX-License-Identifier: MIT */
/* cref.c: see cref.h. The compiler and each call run as children (child.c); a call's regions
 * are shared mappings made before the fork, each ending at an inaccessible page (an overrun
 * faults at its first byte; an underrun from the page below the region's first), so the parent
 * reads the results in place and the child's fault handler names what it touched. */
#include "cref.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "child.h"

/* A fault the child's handler saw, written into memory the parent shares. */
enum { CREF_FAULT_EXIT = 121, CREF_LOAD_EXIT = 122 };
struct cref_status {
    int buf;       /* region touched, -1: none of them */
    int where;     /* 0 before the region, 1 after it, 2 inside an input */
    int write;     /* 1 write, 0 read, -1 not known */
    long long at;  /* byte offset from the region's start */
    char msg[512]; /* a load failure */
};

struct cref_region {
    char *base, *data;
    size_t len;
};

/* The page size, read before any fork: the fault handler may call nothing. */
static size_t cref_pg;
static size_t cref_page(void) { return cref_pg ? cref_pg : (cref_pg = (size_t)sysconf(_SC_PAGESIZE)); }

static char cref_dir[256];
static pid_t cref_dir_owner;

static int cref_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Only the process that made the folder removes it: workers leave by _exit anyway. */
static void cref_cleanup(void)
{
    if (cref_dir[0] && getpid() == cref_dir_owner)
        nftw(cref_dir, cref_rm, 8, FTW_DEPTH | FTW_PHYS);
}

/* What a child printed: its first line that reports an error ("error:", as compilers write
 * them) and its last line. */
struct cref_said {
    char first[512], last[512];
};

static void cref_line(struct cref_said *said, const char *line)
{
    if (!line[0])
        return;
    snprintf(said->last, sizeof said->last, "%s", line);
    if (!said->first[0] && strstr(line, "error"))
        snprintf(said->first, sizeof said->first, "%s", line);
}

/* Reads a child's output until it closes or the deadline passes. Returns 0 at the end of
 * output, -1 at the deadline. */
static int cref_drain(int fd, double deadline, struct cref_said *said)
{
    char buf[4096], line[512];
    size_t used = 0;
    memset(said, 0, sizeof *said);
    for (;;) {
        double left = deadline - now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left) == 0)
            return -1;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            line[used] = 0;
            cref_line(said, line);
            return 0;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n' && used < sizeof line - 1) {
                line[used++] = buf[i];
                continue;
            }
            line[used] = 0, used = 0;
            cref_line(said, line);
        }
    }
}

struct cref_exec {
    char **argv;
};

static void cref_exec_body(void *arg, const struct child_io *io)
{
    (void)io;
    char **argv = ((struct cref_exec *)arg)->argv;
    execvp(argv[0], argv);
    fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Runs argv to its end: its exit status (128 + a signal), or -1 with err. */
static int cref_run(char **argv, double timeout_s, struct cref_said *said, struct hb_err *err)
{
    struct child c;
    struct child_opts o = {0, 1};
    struct cref_exec x = {argv};
    if (child_start(&c, &o, cref_exec_body, &x, err))
        return -1;
    int timed_out = cref_drain(c.out_fd, now_ms() + timeout_s * 1000, said);
    if (timed_out)
        child_kill(&c);
    int status = child_reap(&c);
    if (timed_out)
        return err_set(err, "%s did not finish in %.0f s", argv[0], timeout_s), -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* This process's folder for what it builds. */
static int cref_folder(struct hb_err *err)
{
    if (cref_dir[0])
        return 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(cref_dir, sizeof cref_dir, "%s/hb-ref.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(cref_dir)) {
        err_set(err, "%s: %s", cref_dir, strerror(errno));
        cref_dir[0] = 0;
        return -1;
    }
    cref_dir_owner = getpid();
    atexit(cref_cleanup);
    return 0;
}

char *cref_build(const char *source, const char *generated, double timeout_s, struct hb_err *err)
{
    static int built;
    char out[300], gen[300], flags[] = CREF_FLAGS, *argv[16];
    if (cref_folder(err))
        return NULL;
    snprintf(out, sizeof out, "%s/ref%d.so", cref_dir, built);
    snprintf(gen, sizeof gen, "%s/glue%d.c", cref_dir, built++);
    FILE *f = fopen(gen, "w");
    if (!f || fputs(generated, f) < 0 || fclose(f)) {
        err_set(err, "%s: %s", gen, strerror(errno));
        return NULL;
    }
    const char *cc = getenv("CC");
    int n = 0;
    argv[n++] = (char *)(cc && *cc ? cc : "cc");
    for (char *save = NULL, *w = strtok_r(flags, " ", &save); w; w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    argv[n++] = "-o", argv[n++] = out, argv[n++] = (char *)source, argv[n++] = gen;
    argv[n++] = "-lm", argv[n] = NULL;
    struct cref_said said;
    int rc = cref_run(argv, timeout_s, &said, err);
    if (rc == 0)
        return xstrdup(out);
    if (rc > 0)
        err_set(err, "does not compile (%s %s): %s", argv[0], CREF_FLAGS,
                rc == 127       ? "no such compiler"
                : said.first[0] ? said.first
                                : said.last);
    return NULL;
}

static struct cref_region *cref_regions;
static int cref_n_regions;
static struct cref_status *cref_st;

/* In the child: which region the faulting address lies in, then out. Only stores and _exit. */
static void cref_on_fault(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    char *a = si->si_addr;
    size_t page = cref_page();
    cref_st->buf = -1;
    cref_st->write = -1;
#if defined(__x86_64__)
    cref_st->write = (((ucontext_t *)ctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0; /* the page fault's W bit */
#else
    (void)ctx;
#endif
    for (int i = 0; i < cref_n_regions; i++) {
        const struct cref_region *r = &cref_regions[i];
        if (a < r->base || a >= r->base + r->len)
            continue;
        cref_st->buf = i;
        cref_st->where = a < r->base + page ? 0 : a >= r->base + r->len - page ? 1 : 2;
        cref_st->at = (long long)(a - r->data);
    }
    _exit(CREF_FAULT_EXIT);
}

struct cref_job {
    const char *so, *entry;
    const struct cref_buf *bufs;
    int n;
};

static void cref_call_body(void *arg, const struct child_io *io)
{
    (void)io;
    const struct cref_job *j = arg;
    size_t page = cref_page();
    /* The case data every worker reads is read-only in this child from its fork on (arena.h). */
    void *args[64];
    for (int i = 0; i < j->n; i++) {
        struct cref_region *r = &cref_regions[i];
        if (!j->bufs[i].writable)
            mprotect(r->base + page, r->len - 2 * page, PROT_READ);
        args[i] = r->data;
    }
    static char alt[1 << 16];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = cref_on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    void *dl = dlopen(j->so, RTLD_NOW | RTLD_LOCAL);
    void (*fn)(void *const *) = dl ? (void (*)(void *const *))dlsym(dl, j->entry) : NULL;
    if (!fn) {
        snprintf(cref_st->msg, sizeof cref_st->msg, "%s", dlerror());
        _exit(CREF_LOAD_EXIT);
    }
    fn(args);
    _exit(0);
}

/* The regions: each buffer's bytes end where an inaccessible page starts. */
static int cref_map(const struct cref_buf *bufs, int n, struct hb_err *err)
{
    size_t page = cref_page();
    cref_regions = xcalloc((size_t)n + 1, sizeof *cref_regions);
    cref_n_regions = n;
    for (int i = 0; i < n; i++) {
        struct cref_region *r = &cref_regions[i];
        size_t data = (bufs[i].bytes + page - 1) / page * page;
        r->len = data + 2 * page;
        r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (r->base == MAP_FAILED) {
            r->base = NULL;
            return err_set(err, "mmap of %zu bytes for %s: %s", r->len, bufs[i].name, strerror(errno)), -1;
        }
        mprotect(r->base, page, PROT_NONE);
        mprotect(r->base + r->len - page, page, PROT_NONE);
        r->data = r->base + r->len - page - bufs[i].bytes;
        memcpy(r->data, bufs[i].data, bufs[i].bytes);
    }
    return 0;
}

static void cref_unmap(void)
{
    for (int i = 0; i < cref_n_regions; i++)
        if (cref_regions[i].base)
            munmap(cref_regions[i].base, cref_regions[i].len);
    free(cref_regions);
    cref_regions = NULL, cref_n_regions = 0;
}

/* What the child's end says, as words. */
static void cref_explain(int status, const struct cref_buf *bufs, const struct cref_said *out, struct hb_err *err)
{
    const char *said = out->last;
    const struct cref_status *st = cref_st;
    const char *tail = said[0] ? "; its last output: " : "";
    if (WIFEXITED(status) && WEXITSTATUS(status) == CREF_FAULT_EXIT && st->buf >= 0) {
        const struct cref_buf *b = &bufs[st->buf];
        const char *how = st->write == 1 ? "wrote" : st->write == 0 ? "read" : "touched";
        if (st->where == 2)
            err_set(err, "wrote its input %s (at byte %lld)%s%s", b->name, st->at, tail, said);
        else
            err_set(err, "%s %s the %s of %s (at byte %lld; %s has %zu bytes)%s%s", how, st->where ? "past" : "before",
                    st->where ? "end" : "start", b->name, st->at, b->name, b->bytes, tail, said);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == CREF_FAULT_EXIT) {
        err_set(err, "crashed: %s an address outside every buffer (SIGSEGV)%s%s",
                st->write == 1   ? "wrote"
                : st->write == 0 ? "read"
                                 : "touched",
                tail, said);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == CREF_LOAD_EXIT) {
        err_set(err, "does not load: %s", st->msg);
    } else if (WIFSIGNALED(status)) {
        const char *name = strsignal(WTERMSIG(status));
        err_set(err, "crashed: %s (signal %d)%s%s", name ? name : "signal", WTERMSIG(status), tail, said);
    } else {
        err_set(err, "exited with status %d%s%s", WEXITSTATUS(status), tail, said);
    }
}

int cref_call(const char *so, const char *entry, struct cref_buf *bufs, int n, double timeout_s, struct hb_err *err)
{
    if (n > 64)
        return err_set(err, "%d arguments: at most 64", n), -1;
    cref_st = mmap(NULL, sizeof *cref_st, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (cref_st == MAP_FAILED)
        return err_set(err, "mmap: %s", strerror(errno)), -1;
    memset(cref_st, 0, sizeof *cref_st);
    int rc = cref_map(bufs, n, err);
    struct child c;
    struct child_opts o = {0, 1};
    struct cref_job job = {so, entry, bufs, n};
    if (!rc)
        rc = child_start(&c, &o, cref_call_body, &job, err);
    if (!rc) {
        struct cref_said said;
        int timed_out = cref_drain(c.out_fd, now_ms() + timeout_s * 1000, &said);
        if (timed_out)
            child_kill(&c);
        int status = child_reap(&c);
        if (timed_out)
            err_set(err, "did not return in %.0f s: killed", timeout_s);
        else if (!WIFEXITED(status) || WEXITSTATUS(status))
            cref_explain(status, bufs, &said, err);
        rc = timed_out || !WIFEXITED(status) || WEXITSTATUS(status) ? -1 : 0;
        for (int i = 0; !rc && i < n; i++)
            if (bufs[i].writable)
                memcpy(bufs[i].data, cref_regions[i].data, bufs[i].bytes);
    }
    cref_unmap();
    munmap(cref_st, sizeof *cref_st);
    return rc;
}
