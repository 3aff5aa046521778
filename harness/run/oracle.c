/* SPDX-License-Identifier: MIT */
/* oracle.c: the runner a custom kernel's oracle needs (custom.h): the oracle kernel on one
 * case's data, on the emulator in lockstep at the width it is asked for (cus_oracle_width), in a
 * child of the parent (a backend is loaded in children only), with its outputs passed back
 * through shared memory. The oracle "fails its own run" when it does not build, its launch
 * fails, it touches memory outside its buffers (the emulator sees every access), crashes or
 * hangs. It judges nothing itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "backend_call.h"
#include "custom.h"
#include "runner.h"
#include "text.h"

/* What the child says, in memory the parent shares. */
struct orc_status {
    int done;
    char why[600];
};

struct orc_job {
    const struct kern_desc *k;
    struct hb_case c; /* by value: the child has no case set (plan_prepare.c) */
    const struct cus_data *cd;
    int width;
    struct op_layout l;
    void *shared[HB_MAX_BUF_ARGS]; /* each output's bytes, for the parent */
    struct orc_status *st;
};

/* One launch with every buffer its exact size, the outputs downloaded into the shared
 * memory; 0, or -1 with st->why. */
static int orc_launch(struct orc_job *j, struct bcall *bk, hb_kern *kern)
{
    struct hb_args a;
    struct hb_err err = {{0}};
    unsigned grid[3];
    kern_bind(j->k, j->k->op, &j->l, &a);
    for (int i = 0; i < j->l.n_bufs; i++) {
        size_t bytes = j->l.bytes[i] ? j->l.bytes[i] : 1; /* an empty buffer is still an argument */
        if (bcall_alloc(bk, bytes, &a.bufs[i]) != HB_OK || bcall_upload(bk, a.bufs[i], 0, j->l.data[i], j->l.bytes[i]))
            return snprintf(j->st->why, sizeof j->st->why, "buffers: %s", bcall_error(bk)), -1;
    }
    if (kern_grid(j->k, &j->c, grid, &err))
        return txt_copy(j->st->why, sizeof j->st->why, err.msg), -1;
    if (grid[0] && grid[1] && grid[2] && bcall_launch(bk, kern, grid, &a, NULL) != HB_OK)
        return snprintf(j->st->why, sizeof j->st->why, "launch: %s", bcall_error(bk)), -1;
    struct hb_fault f[2];
    if (grid[0] && grid[1] && grid[2] && bcall_faults(bk, &f[0], &f[1]) && (f[0].count || f[1].count)) {
        int w = f[1].count > 0;
        return snprintf(j->st->why, sizeof j->st->why, "%lld %s out of bounds, first at argument %d byte %lld",
                        f[w].count, w ? "writes" : "reads", f[w].arg, f[w].offset),
               -1;
    }
    for (int i = 0; i < j->l.n_bufs; i++)
        if (j->shared[i] && bcall_download(bk, a.bufs[i], 0, j->shared[i], j->l.bytes[i]) != HB_OK)
            return snprintf(j->st->why, sizeof j->st->why, "download: %s", bcall_error(bk)), -1;
    return 0;
}

static void orc_body(void *arg, int fd)
{
    (void)fd; /* unused: the parent waits for this process's exit */
    struct orc_job *j = arg;
    /* The case data every worker reads is read-only in this child from its fork on (arena.h):
     * the kernel's native code cannot change it, and the references are not here at all. */
    setenv("HB_SIM_SCHEDULE", "lockstep", 1);
    struct hb_err err = {{0}};
    struct bcall bk;
    hb_kern *kern = NULL;
    char msg[512] = "";
    if (bcall_backend(&bk, "sim", &err)) {
        txt_copy(j->st->why, sizeof j->st->why, err.msg);
    } else if (bcall_open(&bk, 0, j->width, msg, sizeof msg) != HB_OK) {
        snprintf(j->st->why, sizeof j->st->why, "the emulator at width %d: %s", j->width, msg);
    } else {
        struct hb_kernel_spec spec;
        kern_spec(j->k, path_exe_dir(), &spec);
        if (bcall_load(&bk, &spec, NULL, NULL, &kern) != HB_OK)
            snprintf(j->st->why, sizeof j->st->why, "load: %s", bcall_error(&bk));
        else
            j->st->done = !orc_launch(j, &bk, kern);
    }
    _exit(0);
}

/* The child's end, as words when it did not finish. */
static void orc_end(const struct orc_job *j, int status, int timed_out, double timeout_s, char *why, size_t len)
{
    if (timed_out)
        snprintf(why, len, "no answer in %.0f s: killed", timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(why, len, "died: %s (signal %d)", strsignal(WTERMSIG(status)), WTERMSIG(status));
    else
        snprintf(why, len, "%s", j->st->why[0] ? j->st->why : "exited before its launch");
}

int orc_run(const struct kern_desc *k, const struct hb_case *c, const struct cus_data *cd, void *const outs[],
            int width, double timeout_s, char *why, size_t len)
{
    struct orc_job j = {k, *c, cd, width, {0}, {NULL}, NULL};
    cus_layout_of(k, cd, &j.l);
    j.st = mmap(NULL, sizeof *j.st, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int ok = j.st != MAP_FAILED;
    for (int i = 0; ok && i < j.l.n_bufs; i++)
        if (outs[i]) {
            j.shared[i] = mmap(NULL, j.l.bytes[i] + 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            ok = j.shared[i] != MAP_FAILED;
            j.shared[i] = ok ? j.shared[i] : NULL;
        }
    struct child ch;
    struct hb_err err = {{0}};
    if (!ok || child_spawn(&ch, orc_body, &j, &err)) {
        snprintf(why, len, "%s", ok ? err.msg : "no shared memory for its outputs");
    } else {
        int status;
        int timed_out = child_wait(&ch, now_ms() + timeout_s * 1000, NULL, NULL, &status) < 0;
        orc_end(&j, status, timed_out, timeout_s, why, len);
        ok = !timed_out && WIFEXITED(status) && j.st->done;
    }
    for (int i = 0; i < j.l.n_bufs; i++)
        if (j.shared[i]) {
            if (ok)
                memcpy(outs[i], j.shared[i], j.l.bytes[i]);
            munmap(j.shared[i], j.l.bytes[i] + 1);
        }
    if (j.st != MAP_FAILED)
        munmap(j.st, sizeof *j.st);
    return ok ? 0 : -1;
}
