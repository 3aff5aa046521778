/* SPDX-License-Identifier: MIT */
/* sim_steps.c: the steps of one g++ build of a kernel source for the emulator, written once for
 * both builds that run them: make's of the shipped kernels (sim_kernel_main.c) and the run
 * time's of any other source (sim_build.c). Preprocess with the runtime header, rewrite for
 * g++ (sim_rewrite.c), compile checked, and the unchecked copy; the compiler, its flags and
 * the emulator's headers come from backend.mk (SIM_KERNEL_*). No cache, lock or link here. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtc.h"
#include "sim_build.h"
#include "sim_rewrite.h"

#define SIM_MAX_USER 32 /* -I and -D words of a manifest's includes and defines */
#define SIM_WORDS_BYTES 24576

/* What a user's whole file adds: host code may throw and use RTTI, as under nvcc and hipcc
 * (the shipped kernels are device code only), and each function and object gets its own
 * section, so each entry's link keeps only what it reaches (sim_link.c): host code's
 * shared_ptr atomics, say, need no hook the emulator refuses, and a kernel's shared memory
 * holds its own arrays only. */
#define SIM_USER_FLAGS "-fexceptions -frtti -ffunction-sections -fdata-sections"

/* Where the emulator's own headers are (sim_prelude.h, include/, sim_wrap.cc): beside
 * the running hb_sim.so's folder when installed (PREFIX/lib/gpu-harness/sim, make install),
 * else the source tree it was built from (SIM_PRELUDE_DIR), as for make's builds (sim-kernel,
 * which is never installed); the words naming them. */
struct sim_paths {
    char dir[PATH_MAX], inc[PATH_MAX + 16], prelude_inc[PATH_MAX + 16], cuda[PATH_MAX + 32], hip[PATH_MAX + 32];
    char wrap[PATH_MAX + 16];
};

static const struct sim_paths *sim_paths(void)
{
    static struct sim_paths p;
    if (p.dir[0])
        return &p;
    Dl_info me;
    char probe[PATH_MAX + 32];
    if (dladdr((void *)sim_paths, &me) && me.dli_fname && strrchr(me.dli_fname, '/')) {
        int n = (int)(strrchr(me.dli_fname, '/') - me.dli_fname);
        snprintf(p.dir, sizeof p.dir, "%.*s/../sim", n, me.dli_fname);
    }
    snprintf(probe, sizeof probe, "%s/sim_prelude.h", p.dir);
    if (!p.dir[0] || access(probe, R_OK) != 0 || !realpath(p.dir, probe))
        snprintf(p.dir, sizeof p.dir, "%s", SIM_PRELUDE_DIR);
    else
        snprintf(p.dir, sizeof p.dir, "%.4000s", probe);
    snprintf(p.inc, sizeof p.inc, "-I%s/include", p.dir);
    snprintf(p.prelude_inc, sizeof p.prelude_inc, "-I%s", p.dir);
    snprintf(p.cuda, sizeof p.cuda, "%s/include/cuda_runtime.h", p.dir);
    snprintf(p.hip, sizeof p.hip, "%s/include/hip/hip_runtime.h", p.dir);
    snprintf(p.wrap, sizeof p.wrap, "%s/sim_wrap.cc", p.dir);
    return &p;
}

int sim_prelude_argv(const struct sim_flavour *f, char **argv)
{
    const struct sim_paths *paths = sim_paths();
    int n = 0;
    argv[n++] = (char *)paths->inc;
    argv[n++] = (char *)paths->prelude_inc;
    argv[n++] = "-include";
    argv[n++] = (char *)(strcmp(f->s->lang, "hip") == 0 ? paths->hip : paths->cuda);
    if (f->port)
        argv[n++] = "-DSIM_PORT_WAVE64";
    return n;
}

/* The compiler and its flags for f (-Werror on shipped sources), with room for `room` more
 * words; the word count, or -1. Checked: with the instrumentation that checks each access. */
static int sim_compiler_argv(const struct sim_flavour *f, int checked, char *words, size_t wlen, char **argv, int room)
{
    const char *flags = checked ? SIM_KERNEL_CXX " " SIM_KERNEL_FLAGS : SIM_KERNEL_CXX " " SIM_KERNEL_UNCHECKED_FLAGS;
    int n = rtc_split(flags, words, wlen, argv, SIM_MAX_WORDS - room - 4);
    if (n >= 0 && !f->user)
        argv[n++] = SIM_KERNEL_WERROR;
    size_t used = strlen(flags) + 1;
    int more = n >= 0 && f->user ? rtc_split(SIM_USER_FLAGS, words + used, wlen - used, argv + n, 4) : 0;
    return more < 0 ? -1 : n + more;
}

/* -DSIM_WRAP_LIST=SIM_WRAP(TAG, ENTRY) ... for every entry f's compile wraps (sim_wrap.cc). */
static int sim_wrap_list(const struct sim_flavour *f, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "-DSIM_WRAP_LIST=");
    for (int i = 0; i < f->n_entries && used < len; i++) {
        char tag[SIM_TAG_BYTES];
        sim_entry_tag(f->entries[i], tag);
        used += (size_t)snprintf(out + used, len - used, "%sSIM_WRAP(%s, %s)", i ? " " : "", tag, f->entries[i]);
    }
    return used < len ? 0 : -1;
}

/* The command that preprocesses f (its sources, the runtime header), output last (its
 * placeholder at *out_at); the source's own folders and macros (rtc_user_flags) come first,
 * the emulator's headers after the compiler's flags. */
static int sim_preprocess_argv(const struct sim_flavour *f, char *words, size_t wlen, char **argv, char *entry_def,
                               size_t elen, int *out_at)
{
    /* words: the compiler's flags in the first half, the source's in the second. */
    int n = sim_compiler_argv(f, 1, words, wlen / 2, argv, 18 + SIM_MAX_USER);
    if (n < 0)
        return -1;
    char *rest[SIM_MAX_WORDS];
    memcpy(rest, argv + 1, (size_t)(n - 1) * sizeof *argv);
    int user = rtc_user_flags(f->s, words + wlen / 2, wlen - wlen / 2, argv + 1, SIM_MAX_USER);
    if (user < 0)
        return -1;
    memcpy(argv + 1 + user, rest, (size_t)(n - 1) * sizeof *argv);
    n += user;
    n += sim_prelude_argv(f, argv + n);
    if (f->wrapped) {
        if (sim_wrap_list(f, entry_def, elen) != 0)
            return -1;
        argv[n++] = entry_def;
        argv[n++] = "-include";
        argv[n++] = (char *)f->s->source_path;
        argv[n++] = (char *)sim_paths()->wrap;
    } else {
        argv[n++] = (char *)f->s->source_path;
    }
    argv[n++] = "-E";
    argv[n++] = "-o";
    *out_at = n;
    argv[n++] = NULL; /* the output, filled in by the caller, who may add 6 words after it */
    argv[n] = NULL;
    return n;
}

/* The command that compiles the preprocessed source `pre` (unroll pragmas rewritten) into obj. */
static int sim_compile_argv(const struct sim_flavour *f, int checked, const char *pre, const char *obj, char *words,
                            size_t wlen, char **argv)
{
    int n = sim_compiler_argv(f, checked, words, wlen, argv, 8);
    if (n < 0)
        return -1;
    argv[n++] = "-x";
    argv[n++] = "c++-cpp-output";
    argv[n++] = (char *)pre;
    argv[n++] = "-c";
    argv[n++] = "-o";
    argv[n++] = (char *)obj;
    argv[n] = NULL;
    return n;
}

int sim_rewrite_file(const char *pre, const char *out, int rolled, char *err, size_t errlen)
{
    FILE *in = fopen(pre, "r"), *to = in ? fopen(out, "w") : NULL;
    int rc = in && to ? sim_rewrite(in, to, rolled) : -1;
    if (to && fclose(to) != 0)
        rc = -1;
    if (in)
        fclose(in);
    if (rc)
        snprintf(err, errlen, "rewriting %.900s: %s", pre, strerror(errno));
    return rc;
}

void sim_build_tool(const struct sim_flavour *f, char *out, size_t len)
{
    char words[SIM_WORDS_BYTES], entry[SIM_WRAP_BYTES], *argv[SIM_MAX_WORDS], few[200];
    int at = 0;
    size_t used = 0;
    out[0] = '\0';
    if (sim_preprocess_argv(f, words, sizeof words, argv, entry, sizeof entry, &at) < 0)
        at = 0;
    /* The wrappers of many entries would crowd the flags out of the report's line. */
    snprintf(few, sizeof few, "-DSIM_WRAP_LIST=(the wrappers of %d entries)", f->n_entries);
    for (int i = 0; i < at - 2 && used < len; i++) /* up to "-E -o OUTPUT" */
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "",
                                 argv[i] == entry && f->n_entries > 1 ? few : argv[i]);
}

int sim_unchecked_path(const char *so, char *out, size_t len)
{
    size_t n = strlen(so);
    if (n < 3 || strcmp(so + n - 3, ".so") != 0 || n + 11 > len)
        return -1;
    snprintf(out, len, "%.*s.unchecked.so", (int)(n - 3), so);
    return 0;
}

int sim_files_open(const char *dir, struct sim_files *t, char *err, size_t errlen)
{
    char stem[4208];
    if (rtc_scratch_open(dir, t->scratch, sizeof t->scratch, err, errlen) != 0)
        return -1;
    snprintf(stem, sizeof stem, "%s/k", t->scratch);
    char *names[] = {t->log, t->pre, t->ii, t->obj, t->u_ii, t->u_obj, t->u_log};
    const char *ext[] = {".log", ".ii", ".unrolled.ii", ".o", ".rolled.ii", ".unchecked.o", ".u.log"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (rtc_temp(stem, ext[i], names[i], sizeof t->log, err, errlen) != 0)
            return -1;
    return 0;
}

int sim_preprocess(const struct sim_flavour *f, struct sim_files *t, const char *deps, const char *target, char *err,
                   size_t errlen)
{
    char words[SIM_WORDS_BYTES], entry[SIM_WRAP_BYTES], *argv[SIM_MAX_WORDS];
    int at, n = sim_preprocess_argv(f, words, sizeof words, argv, entry, sizeof entry, &at);
    if (n < 0) {
        snprintf(err, errlen, "too many compiler flags");
        return -1;
    }
    argv[at] = t->pre;
    if (deps) { /* make's: the headers read, for its next judgement of the product */
        char *more[] = {"-MMD", "-MP", "-MF", (char *)deps, "-MT", (char *)target, NULL};
        memcpy(argv + at + 1, more, sizeof more);
    }
    return rtc_run(argv, t->log, err, errlen);
}

int sim_compile(const struct sim_flavour *f, struct sim_files *t, char *err, size_t errlen)
{
    char words[SIM_WORDS_BYTES], *argv[SIM_MAX_WORDS];
    int rc = sim_rewrite_file(t->pre, t->ii, 0, err, errlen);
    if (rc != 0)
        return rc;
    if (sim_compile_argv(f, 1, t->ii, t->obj, words, sizeof words, argv) < 0) {
        snprintf(err, errlen, "too many compiler flags");
        return -1;
    }
    return rtc_run(argv, t->log, err, errlen);
}

int sim_compile_unchecked(const struct sim_flavour *f, struct sim_files *t, char *err, size_t errlen)
{
    char words[4096], *argv[SIM_MAX_WORDS];
    if (sim_rewrite_file(t->pre, t->u_ii, 1, err, errlen) != 0)
        return -1;
    if (sim_compile_argv(f, 0, t->u_ii, t->u_obj, words, sizeof words, argv) < 0) {
        snprintf(err, errlen, "too many compiler flags");
        return -1;
    }
    return rtc_run(argv, t->u_log, err, errlen);
}
