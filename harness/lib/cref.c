/* SPDX-License-Identifier: MIT */
/* cref.c: see cref.h. The compiler and each call run as children (child.c), each to its own
 * exit within the deadline; a call's regions are shared mappings made before the fork, each
 * ending at an inaccessible page (an overrun faults at its first byte; an underrun from the page
 * below the region's first, the slack between them is checked after), so the parent reads the
 * results in place and the child's fault handler names what it touched. The call's child ends
 * every process the code started before it reports; it does not fence the code's threads. */
#include "cref.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "child.h"

/* How the call ended, written by the child into memory the parent shares: a fault its handler
 * saw, or its return and how many processes it had left running then. */
enum { CREF_FAULT_EXIT = 121, CREF_LOAD_EXIT = 122 };
struct cref_status {
    int buf;       /* region touched, -1: none of them */
    int where;     /* 0 before the region's data, 1 after it, 2 inside an input */
    int write;     /* 1 write, 0 read, -1 not known */
    long long at;  /* byte offset from the region's start */
    char msg[512]; /* a load failure */
    int returned;  /* the function returned (an exit, exec or handler of its own inside it did not) */
    int left;      /* processes it started that still ran when it returned, killed */
};

/* The bytes between a region's first inaccessible page and its data (a buffer ends at the last
 * page), so a write before the data's start that faults nowhere still shows. */
#define CREF_SLACK 0xa5

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

/* What a child printed: its first line that reports an error as compilers write them, and its
 * last line; `line` gathers the one coming in. */
struct cref_said {
    char first[512], last[512], line[512];
    size_t used;
};

/* Whether a compiler's line reports an error: "file:1:2: error: ...", "cc1: fatal error: ...",
 * gas's "file:3: Error: ...", a driver's "error: ...", nvcc's "file(3): error: ..." and "ptxas
 * error   : ...". A line that only holds the word, as a path may ("ref_error.c: In function
 * 'f':"), is not one. rtc.c's rtc_first_error keeps the same rule for kernels' compiles. */
static int cref_error_word(const char *w)
{
    if (strncmp(w, "error", 5) && strncmp(w, "fatal", 5))
        return 0;
    w += 5;
    return w[strspn(w, " \t")] == ':';
}

static int cref_is_error(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!strncmp(line, "fatal error:", 12) || strstr(line, ": error:") || strstr(line, ": fatal error:") ||
        strstr(line, ": Error:"))
        return 1;
    const char *word = line + strcspn(line, " \t:"); /* a tool's name, then "error :" */
    return cref_error_word(line) || cref_error_word(word + strspn(word, " \t"));
}

static void cref_line(struct cref_said *said, const char *line)
{
    if (!line[0])
        return;
    snprintf(said->last, sizeof said->last, "%s", line);
    if (!said->first[0] && cref_is_error(line))
        snprintf(said->first, sizeof said->first, "%s", line);
}

/* child_wait's output handler: the bytes a child printed, into lines. */
static void cref_hear(void *arg, const char *bytes, size_t n)
{
    struct cref_said *said = arg;
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] != '\n' && said->used < sizeof said->line - 1) {
            said->line[said->used++] = bytes[i];
            continue;
        }
        said->line[said->used] = 0, said->used = 0;
        cref_line(said, said->line);
    }
}

/* Waits for a child until the deadline, its output heard into said. 0, or -1 when it was
 * killed at the deadline. */
static int cref_wait(struct child *c, double timeout_s, struct cref_said *said, int *status)
{
    memset(said, 0, sizeof *said);
    int rc = child_wait(c, now_ms() + timeout_s * 1000, cref_hear, said, status);
    said->line[said->used] = 0;
    cref_line(said, said->line);
    return rc;
}

struct cref_exec {
    char **argv;
};

static void cref_exec_body(void *arg, const struct child_io *io)
{
    (void)io;
    char **argv = ((struct cref_exec *)arg)->argv;
    /* The compiler's temporaries go into the folder, and with it, however the run ends. */
    setenv("TMPDIR", cref_dir, 1);
    execvp(argv[0], argv);
    fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Runs argv to its end (its own exit, whoever holds its output): its exit status (128 + a
 * signal), or -1 with err. */
static int cref_run(char **argv, double timeout_s, struct cref_said *said, struct hb_err *err)
{
    struct child c;
    struct child_opts o = {0, 1};
    struct cref_exec x = {argv};
    if (child_start(&c, &o, cref_exec_body, &x, err))
        return -1;
    int status;
    if (cref_wait(&c, timeout_s, said, &status))
        return err_set(err, "does not compile: %s did not finish in %.0f s: killed", argv[0], timeout_s), -1;
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
        cref_st->where = a < r->data ? 0 : a >= r->base + r->len - page ? 1 : 2;
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
    /* What it starts (its constructors too) stays below this process, which ends it all before
     * saying it returned: nothing it left can change its outputs once the parent reads them. */
    child_adopt_orphans();
    void *dl = dlopen(j->so, RTLD_NOW | RTLD_LOCAL);
    void (*fn)(void *const *) = dl ? (void (*)(void *const *))dlsym(dl, j->entry) : NULL;
    if (!fn) {
        snprintf(cref_st->msg, sizeof cref_st->msg, "%s", dlerror());
        _exit(CREF_LOAD_EXIT);
    }
    fn(args);
    cref_st->left = child_end_descendants();
    cref_st->returned = 1;
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
        memset(r->base + page, CREF_SLACK, (size_t)(r->data - (r->base + page)));
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
    } else if (WEXITSTATUS(status) == 0) {
        err_set(err,
                "exited with status 0 without returning (an exit, exec or signal handler of its own inside it)%s%s",
                tail, said);
    } else {
        err_set(err, "exited with status %d%s%s", WEXITSTATUS(status), tail, said);
    }
}

/* The first byte of [from, to) that is not `want`, or NULL. */
static const char *cref_changed(const char *from, const char *to, unsigned char want)
{
    for (; from < to; from++)
        if ((unsigned char)*from != want)
            return from;
    return NULL;
}

/* After a call that returned: writes that faulted nowhere, into the slack before a buffer's
 * data, an inaccessible page or an input the code made writable (mprotect). 0, or -1 with err. */
static int cref_check(const struct cref_buf *bufs, int n, struct hb_err *err)
{
    size_t page = cref_page();
    for (int i = 0; i < n; i++) {
        const struct cref_region *r = &cref_regions[i];
        const struct cref_buf *b = &bufs[i];
        char *end = r->base + r->len;
        mprotect(r->base, page, PROT_READ), mprotect(end - page, page, PROT_READ);
        const char *at = cref_changed(r->base, r->base + page, 0);
        if (!at)
            at = cref_changed(r->base + page, r->data, CREF_SLACK);
        if (at)
            return err_set(err, "wrote before the start of %s (at byte %lld; %s has %zu bytes)", b->name,
                           (long long)(at - r->data), b->name, b->bytes),
                   -1;
        if (!b->writable && memcmp(r->data, b->data, b->bytes)) {
            size_t k = 0;
            while (r->data[k] == ((const char *)b->data)[k])
                k++;
            return err_set(err, "wrote its input %s (at byte %zu)", b->name, k), -1;
        }
        if ((at = cref_changed(end - page, end, 0)))
            return err_set(err, "wrote past the end of %s (at byte %lld; %s has %zu bytes)", b->name,
                           (long long)(at - r->data), b->name, b->bytes),
                   -1;
    }
    return 0;
}

/* How the call ended: 0 when it returned, left nothing running and wrote nowhere it may not;
 * else -1 with err. */
static int cref_outcome(struct child *c, double timeout_s, const struct cref_buf *bufs, int n, struct hb_err *err)
{
    struct cref_said said;
    int status;
    if (cref_wait(c, timeout_s, &said, &status))
        return err_set(err, "did not return in %.0f s: killed", timeout_s), -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) || !cref_st->returned)
        return cref_explain(status, bufs, &said, err), -1;
    if (cref_st->left)
        return err_set(err,
                       "returned leaving %d process%s it started running (killed): %s could have changed its "
                       "outputs after it returned",
                       cref_st->left, cref_st->left > 1 ? "es" : "", cref_st->left > 1 ? "they" : "it"),
               -1;
    return cref_check(bufs, n, err);
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
    if (!rc)
        rc = cref_outcome(&c, timeout_s, bufs, n, err);
    for (int i = 0; !rc && i < n; i++)
        if (bufs[i].writable)
            memcpy(bufs[i].data, cref_regions[i].data, bufs[i].bytes);
    cref_unmap();
    munmap(cref_st, sizeof *cref_st);
    return rc;
}

void cref_remove_now(void)
{
    if (!cref_dir[0] || getpid() != cref_dir_owner)
        return;
    /* A compiler just killed may still write a file: the folder is listed again until it goes. */
    for (int tries = 0; tries < 10; tries++) {
        int dir = open(cref_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
            return;
        char buf[4096];
        long got;
        while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
            for (long off = 0; off < got;) {
                const struct dirent64 *e = (const struct dirent64 *)(buf + off);
                off += e->d_reclen;
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(dir, e->d_name, 0) && errno == EISDIR)
                    unlinkat(dir, e->d_name, AT_REMOVEDIR);
            }
        close(dir);
        if (rmdir(cref_dir) == 0 || errno != ENOTEMPTY)
            return;
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}
