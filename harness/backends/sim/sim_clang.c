/* SPDX-License-Identifier: MIT */
/* sim_clang.c: a shipped kernel's two copies built by clang, where make found it (backend.mk's
 * SIM_CLANG), for make's builds (sim_kernel_main.c): the checked copy with its ThreadSanitizer
 * hooks inlined, and the unchecked copy from the same rewritten source without them. clang
 * instruments as g++ does but, unlike g++, can inline the hooks afterwards: with the
 * instrumentation in, the functions' sanitize_thread attribute is dropped from the IR (LLVM
 * inlines only between functions whose sanitizer attributes agree) and the IR optimized
 * again, with the pass that merges checks of one address expression first where it was built
 * (sim_merge_checks.cc), so a check is a few inline compares whose loop-invariant half is
 * hoisted, not a call that spills the kernel's registers. Users' kernels stay g++'s. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtc.h"
#include "sim_build.h"

/* The scratch files of clang's build, beside g++'s (sim_files). */
struct sim_clang_files {
    char ii[4300], unrolled[4300], ll[4300], inlined[4300], obj[4300], u_obj[4300];
};

/* clang, its flags (SIM_KERNEL_CLANG_FLAGS), the emulator's headers and, with tsan, the
 * instrumentation's flags, into argv; the count, or -1. */
static int sim_clang_argv(const struct sim_flavour *f, int tsan, char *words, size_t wlen, char **argv)
{
    int n = rtc_split(SIM_KERNEL_CLANG " " SIM_KERNEL_CLANG_FLAGS, words, wlen / 2, argv, SIM_MAX_WORDS / 2);
    if (n < 0)
        return -1;
    n += sim_prelude_argv(f, argv + n);
    int more = tsan ? rtc_split(SIM_KERNEL_CLANG_TSAN, words + wlen / 2, wlen / 2, argv + n, 12) : 0;
    return more < 0 ? -1 : n + more;
}

/* The IR in without the sanitize_thread attribute (the first on each attribute group's line),
 * into out, so the optimizer inlines the hooks into instrumented functions. 0, or -1 with err. */
static int sim_clang_strip(const char *in, const char *out, char *err, size_t errlen)
{
    FILE *from = fopen(in, "r"), *to = from ? fopen(out, "w") : NULL;
    char *line = NULL, *at;
    size_t cap = 0;
    int rc = from && to ? 0 : -1;
    while (rc == 0 && getline(&line, &cap, from) >= 0) {
        if (strncmp(line, "attributes #", 12) == 0 && (at = strstr(line, " sanitize_thread")))
            memmove(at, at + 16, strlen(at + 16) + 1);
        if (fputs(line, to) == EOF)
            rc = -1;
    }
    if (from && ferror(from))
        rc = -1;
    if (to && fclose(to) != 0)
        rc = -1;
    if (from)
        fclose(from);
    free(line);
    if (rc)
        snprintf(err, errlen, "stripping %.900s: %s", in, strerror(errno));
    return rc;
}

/* Preprocess with clang, instrumented, rewrite for the emulator (sim_rewrite.c) and emit IR. */
static int sim_clang_ir(const struct sim_flavour *f, struct sim_files *t, const struct sim_clang_files *c, char *err,
                        size_t errlen)
{
    char words[4096], *argv[SIM_MAX_WORDS];
    int n = sim_clang_argv(f, 1, words, sizeof words, argv);
    if (n < 0 || n + 10 > SIM_MAX_WORDS) {
        snprintf(err, errlen, "too many compiler flags");
        return -1;
    }
    /* -x c++ before the flags, as for g++; the source and output after them. */
    memmove(argv + 3, argv + 1, (size_t)(n - 1) * sizeof *argv);
    argv[1] = "-x", argv[2] = "c++";
    char *pre[] = {(char *)f->s->source_path, "-E", "-o", (char *)c->ii, NULL};
    memcpy(argv + n + 2, pre, sizeof pre);
    int rc = rtc_run(argv, t->log, err, errlen);
    if (rc == 0)
        rc = sim_rewrite_file(c->ii, c->unrolled, 0, err, errlen);
    if (rc != 0)
        return rc;
    char *ir[] = {"-x", "c++-cpp-output", (char *)c->unrolled, "-S", "-emit-llvm", "-o", (char *)c->ll, NULL};
    n = sim_clang_argv(f, 1, words, sizeof words, argv);
    memcpy(argv + n, ir, sizeof ir);
    return rtc_run(argv, t->log, err, errlen);
}

int sim_clang_objects(const struct sim_flavour *f, struct sim_files *t, int unchecked, char *obj, char *u_obj,
                      size_t len, char *err, size_t errlen)
{
    struct sim_clang_files c;
    const char *ext[] = {"ii", "unrolled.ii", "ll", "inlined.ll", "o", "unchecked.o"};
    char *names[] = {c.ii, c.unrolled, c.ll, c.inlined, c.obj, c.u_obj};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        snprintf(names[i], sizeof c.ii, "%.4200s/clang.%s", t->scratch, ext[i]);
    snprintf(obj, len, "%s", c.obj);
    snprintf(u_obj, len, "%s", unchecked ? c.u_obj : "");
    int rc = sim_clang_ir(f, t, &c, err, errlen);
    if (rc == 0)
        rc = sim_clang_strip(c.ll, c.inlined, err, errlen);
    if (rc != 0)
        return rc;
    char plugin[4200] = "", words[4096], *argv[SIM_MAX_WORDS];
    if (SIM_MERGE_PLUGIN[0])
        snprintf(plugin, sizeof plugin, "-fpass-plugin=%s", SIM_MERGE_PLUGIN);
    char *opt[] = {SIM_KERNEL_CLANG, "-O2", "-fPIC", "-ffp-contract=off", "-c", c.inlined, "-o", c.obj, NULL, NULL};
    if (plugin[0]) /* before -c, where the plugin's word goes */
        memmove(opt + 5, opt + 4, 5 * sizeof *opt), opt[4] = plugin;
    rc = rtc_run(opt, t->log, err, errlen);
    if (rc != 0 || !unchecked)
        return rc;
    /* The unchecked copy: the same source (its unused hooks too), as g++'s is made. */
    int n = sim_clang_argv(f, 0, words, sizeof words, argv);
    char *plain[] = {"-x", "c++-cpp-output", c.unrolled, "-c", "-o", c.u_obj, NULL};
    memcpy(argv + n, plain, sizeof plain);
    return rtc_run(argv, t->log, err, errlen);
}
