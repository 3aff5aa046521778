/* SPDX-License-Identifier: MIT */
/* sim_kernel_main.c: sim-kernel, make's build of one shipped kernel for the emulator
 * (backend.mk), with the run-time build's own steps (sim_steps.c) and link (sim_link.c):
 *   sim-kernel cuda|cuda-wave64|hip SOURCE PRODUCT DEPS
 * g++'s checked copy (-Werror, as every shipped source), then, where clang is, both copies by
 * clang (sim_clang.c), else g++'s unchecked copy, for an object without volatile accesses.
 * Unlike a run-time build: the log is PRODUCT.log, the products are not sealed (make judges
 * them by their times), DEPS gets the headers read, and a source that does not build leaves
 * a one-line marker for the PRODUCT (load() reports a SKIP), so one unportable kernel never
 * fails the whole build. Exits 1 only when it cannot build at all (its scratch folder). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rtc.h"
#include "sim_build.h"

/* What make's build writes besides the product: its temporaries' names. */
struct sim_kernel_out {
    const char *product;
    char upath[4300];                /* its unchecked copy */
    char tmp[4300], u_tmp[4300];     /* g++'s copies, in the scratch folder */
    char c_tmp[4300], c_u_tmp[4300]; /* clang's */
};

/* A line of the tool's own in the log (a step that could not run leaves none there). */
static void sim_kernel_note(const char *log, const char *text)
{
    FILE *f = fopen(log, "a");
    if (f) {
        fprintf(f, "sim-kernel: %s\n", text);
        fclose(f);
    }
}

/* Where the build failed: the marker "sim-unsupported: " and the log's first line that says
 * error or undefined, else its first line, in place of the product. */
static void sim_kernel_unsupported(const struct sim_flavour *f, const char *product, const char *log)
{
    char line[2048] = "", first[2048] = "";
    FILE *in = fopen(log, "r"), *out;
    while (in && fgets(line, sizeof line, in)) {
        if (!first[0])
            snprintf(first, sizeof first, "%s", line);
        if (strstr(line, "error") || strstr(line, "undefined"))
            break;
        line[0] = '\0';
    }
    if (in)
        fclose(in);
    const char *why = line[0] ? line : first;
    if ((out = fopen(product, "w"))) {
        fprintf(out, "sim-unsupported: %s", why);
        fclose(out);
    }
    printf("sim: %s does not build for the emulator: %.*s (log: %s)\n", f->s->source_path, (int)strcspn(why, "\n"), why,
           log);
}

/* Both copies by clang, in place of g++'s: 0, or non-zero when any step or link failed. */
static int sim_kernel_clang(const struct sim_flavour *f, struct sim_files *t, int unchecked,
                            const struct sim_kernel_out *o, char *err, size_t errlen)
{
    char obj[4300], u_obj[4300];
    int rc = sim_clang_objects(f, t, unchecked, obj, u_obj, sizeof obj, err, errlen);
    if (rc == 0)
        rc = sim_link_copy(f, t->scratch, obj, o->c_tmp, t->log, err, errlen);
    if (rc == 0 && unchecked)
        rc = sim_link_copy(f, t->scratch, u_obj, o->c_u_tmp, t->log, err, errlen);
    if (rc < 0)
        sim_kernel_note(t->log, err);
    return rc;
}

/* The checked copy by g++, then the better copies (clang's, else g++'s unchecked one), each
 * renamed into place only once it is whole: the product last. 0, or -1 when the product could
 * not be put in place (make then fails: the source may well be sound). */
static int sim_kernel_build(const struct sim_flavour *f, struct sim_files *t, const struct sim_kernel_out *o,
                            const char *deps)
{
    char err[1024] = "";
    int rc = sim_preprocess(f, t, deps, o->product, err, sizeof err);
    if (rc == 0)
        rc = sim_compile(f, t, err, sizeof err);
    if (rc == 0)
        rc = sim_link_copy(f, t->scratch, t->obj, o->tmp, t->log, err, sizeof err);
    if (rc != 0) {
        if (rc < 0)
            sim_kernel_note(t->log, err);
        sim_kernel_unsupported(f, o->product, t->log);
        return 0;
    }
    int calls = sim_elf_calls_volatile(t->obj, err, sizeof err);
    if (calls < 0)
        sim_kernel_note(t->log, err);
    if (SIM_KERNEL_CLANG[0] && sim_kernel_clang(f, t, calls == 0, o, err, sizeof err) == 0) {
        if (calls == 0)
            rename(o->c_u_tmp, o->upath);
        rename(o->c_tmp, o->tmp);
        printf("sim: built %s by clang, its access hooks inlined\n", o->product);
    } else if (calls == 0 && sim_compile_unchecked(f, t, err, sizeof err) == 0 &&
               sim_link_copy(f, t->scratch, t->u_obj, o->u_tmp, t->log, err, sizeof err) == 0) {
        rename(o->u_tmp, o->upath);
        printf("sim: built %s\n", o->upath);
    }
    if (rename(o->tmp, o->product) != 0) {
        fprintf(stderr, "sim-kernel: %s: %s\n", o->product, strerror(errno));
        return -1;
    }
    printf("sim: built %s\n", o->product);
    return 0;
}

int main(int argc, char **argv)
{
    const char *flavours[] = {"cuda", "cuda-wave64", "hip"};
    int which = -1;
    for (int i = 0; argc == 5 && i < 3; i++)
        if (strcmp(argv[1], flavours[i]) == 0)
            which = i;
    if (which < 0) {
        fprintf(stderr, "usage: sim-kernel cuda|cuda-wave64|hip SOURCE PRODUCT DEPS\n");
        return 2;
    }
    const char *source = argv[2], *base = strrchr(source, '/');
    char dir[4096], err[1024] = "";
    struct sim_kernel_out o = {.product = argv[3]};
    struct hb_kernel_spec s = {.name = base ? base + 1 : source, .lang = which == 2 ? "hip" : "cuda"};
    s.source_path = s.entry = source;
    struct sim_flavour f = {.s = &s, .port = which == 1, .n_entries = 1, .entries = &s.entry};
    const char *slash = strrchr(o.product, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o.product) : 1, slash ? o.product : ".");
    struct sim_files t;
    memset(&t, 0, sizeof t);
    if (sim_unchecked_path(o.product, o.upath, sizeof o.upath) != 0)
        snprintf(err, sizeof err, "not a .so");
    else if (sim_files_open(dir, &t, err, sizeof err) == 0)
        err[0] = '\0';
    if (err[0]) {
        fprintf(stderr, "sim-kernel: %s: %s\n", o.product, err);
        rtc_scratch_close(t.scratch);
        return 1;
    }
    /* One log for every step, as make keeps it beside the product. */
    snprintf(t.log, sizeof t.log, "%s.log", o.product);
    snprintf(t.u_log, sizeof t.u_log, "%s", t.log);
    snprintf(o.tmp, sizeof o.tmp, "%s/product.so", t.scratch);
    snprintf(o.u_tmp, sizeof o.u_tmp, "%s/product.unchecked.so", t.scratch);
    snprintf(o.c_tmp, sizeof o.c_tmp, "%s/clang.so", t.scratch);
    snprintf(o.c_u_tmp, sizeof o.c_u_tmp, "%s/clang.unchecked.so", t.scratch);
    int log = open(t.log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (log >= 0)
        close(log);
    /* No stale unchecked copy beside a new product, no stale headers for a source that no
     * longer preprocesses (make then judges it by the whole prelude: backend.mk). */
    unlink(o.upath);
    unlink(argv[4]);
    int rc = sim_kernel_build(&f, &t, &o, argv[4]);
    rtc_scratch_close(t.scratch);
    return rc ? 1 : 0;
}
