/* SPDX-License-Identifier: MIT */
/* sim_build.c: run-time builds of kernel sources for the emulator into the per-user cache
 * (rtc.h), as nvcc and hipcc would build users' sources: runtime header included, no -Werror,
 * whole files with their host code (sim_rewrite.c, sim_host.h), the entries wrapped
 * (sim_wrap.cc) for C++ names, templates and declared parameters. A user's file is compiled
 * once, checked and unchecked, for every entry its manifests give it (the objects cached by
 * the SHA-256 of the preprocessed source, one build at a time under a lock, so workers share
 * it); each entry's product is then linked from them (sim_link.c). A failed build gets its
 * unmodelled feature named (sim_why.c). No dlopen here. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtc.h"
#include "sim_build.h"
#include "sim_rewrite.h"

#define SIM_MAX_WORDS 80
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
 * else the source tree it was built from (SIM_PRELUDE_DIR); the words naming them. */
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
    const struct sim_paths *paths = sim_paths();
    argv[n++] = (char *)paths->inc;
    argv[n++] = (char *)paths->prelude_inc;
    argv[n++] = "-include";
    argv[n++] = (char *)(strcmp(f->s->lang, "hip") == 0 ? paths->hip : paths->cuda);
    if (f->port)
        argv[n++] = "-DSIM_PORT_WAVE64";
    if (f->wrapped) {
        if (sim_wrap_list(f, entry_def, elen) != 0)
            return -1;
        argv[n++] = entry_def;
        argv[n++] = "-include";
        argv[n++] = (char *)f->s->source_path;
        argv[n++] = (char *)paths->wrap;
    } else {
        argv[n++] = (char *)f->s->source_path;
    }
    argv[n++] = "-E";
    argv[n++] = "-o";
    *out_at = n;
    argv[n++] = NULL; /* the output, filled in by the caller, who may add 4 words after it */
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

/* pre rewritten for g++ (sim_rewrite.c: launches, main, unroll pragmas, rolled as the unchecked
 * copy wants them...), into out. 0, or -1 with err. */
static int sim_rewrite_file(const char *pre, const char *out, int rolled, char *err, size_t errlen)
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

/* The temporaries of one build, all in its scratch folder (rtc_scratch_open), and the
 * cached objects of the file (sim_lookup). */
struct sim_temps {
    char scratch[4200];
    char pre[4200], ii[4200], obj[4200], log[4200];
    char u_ii[4200], u_obj[4200], u_log[4200];                /* the unchecked copy's */
    char c_obj[4200], c_uobj[4200], lock[4200], failed[4200]; /* in the cache */
};

int sim_unchecked_path(const char *so, char *out, size_t len)
{
    size_t n = strlen(so);
    if (n < 3 || strcmp(so + n - 3, ".so") != 0 || n + 11 > len)
        return -1;
    snprintf(out, len, "%.*s.unchecked.so", (int)(n - 3), so);
    return 0;
}

/* The unchecked object of a compiled file (backend.mk builds the shipped kernels' the same
 * way): the same preprocessed source compiled without the instrumentation, its innermost
 * accumulator loops left rolled for the vectorizer (sim_unroll.h), sealed into the cache; none for an object that makes
 * volatile accesses, as only the instrumentation makes those sync points, or one the compiler refuses (the repeats then
 * run checked). Its own log is dropped: the checked build's already shows the source's warnings. 0, or -1 with err. */
static int sim_unchecked(const struct sim_flavour *f, struct sim_temps *t, char *err, size_t errlen)
{
    char words[4096], *argv[SIM_MAX_WORDS];
    int calls = sim_elf_calls_volatile(t->obj, err, errlen);
    if (calls != 0)
        return calls < 0 ? -1 : 0;
    if (sim_rewrite_file(t->pre, t->u_ii, 1, err, errlen) != 0 ||
        sim_compile_argv(f, 0, t->u_ii, t->u_obj, words, sizeof words, argv) < 0)
        return -1;
    int rc = rtc_run(argv, t->u_log, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : (err[0] = '\0', 0);
    return rtc_seal(t->u_obj, t->c_uobj, err, errlen);
}

/* Preprocess f into t->pre: what the cache key is made of. 0, or as rtc_run. */
static int sim_preprocess(const struct sim_flavour *f, struct sim_temps *t, char *err, size_t errlen)
{
    char words[SIM_WORDS_BYTES], entry[SIM_WRAP_BYTES], *argv[SIM_MAX_WORDS];
    int at, n = sim_preprocess_argv(f, words, sizeof words, argv, entry, sizeof entry, &at);
    if (n < 0) {
        snprintf(err, errlen, "too many compiler flags");
        return -1;
    }
    argv[at] = t->pre;
    return rtc_run(argv, t->log, err, errlen);
}

/* Rewrite t->pre for g++ (sim_rewrite.c: launches, main, unroll pragmas...), compile: 0, or
 * as rtc_run. */
static int sim_compile(const struct sim_flavour *f, struct sim_temps *t, char *err, size_t errlen)
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

/* The file's objects in the cache, compiled unless they are there: one build at a time
 * holds the object's lock, so workers loading its kernels at once compile it once. The
 * unchecked object is sealed before the checked one, whose presence says both are done.
 * Returns as rtc_run; *compiled says whether this build compiled them. */
static int sim_objects(const struct sim_flavour *f, struct sim_temps *t, int *compiled, char *err, size_t errlen)
{
    int lock = open(t->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), rc = 0;
    if (lock >= 0)
        (void)flock(lock, LOCK_EX); /* without the lock two workers may both compile: still sound */
    *compiled = !rtc_product_ok(t->c_obj);
    /* A file that did not compile with all its entries is not tried again for each of them. */
    if (*compiled && f->n_entries > 1 && access(t->failed, F_OK) == 0) {
        snprintf(err, errlen, "the file does not compile with all its entries (%.900s)", t->failed);
        rc = 1;
    } else if (*compiled) {
        rc = sim_compile(f, t, err, errlen);
        if (rc == 0 && (sim_unchecked(f, t, err, errlen) != 0 || rtc_seal(t->obj, t->c_obj, err, errlen) != 0))
            rc = -1;
        int mark =
            rc == 1 && f->n_entries > 1 ? open(t->failed, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
        if (mark >= 0)
            close(mark);
    }
    if (lock >= 0)
        close(lock);
    return rc;
}

/* Links f's product at path from the file's objects, compiling them first if need be. */
static int sim_steps(const struct sim_flavour *f, const char *path, struct sim_temps *t, int *compiled, char *err,
                     size_t errlen)
{
    int rc = sim_objects(f, t, compiled, err, errlen);
    if (rc != 0)
        return rc;
    struct sim_objects o = {t->scratch, t->c_obj, rtc_product_ok(t->c_uobj) ? t->c_uobj : NULL};
    return sim_link_entry(f, &o, path, err, errlen);
}

/* Everything that decides the file's objects besides the preprocessed source: the flags and
 * steps after it, the entries wrapped, and this backend's own build (its rewriter, its
 * loader). */
static void sim_key(const struct sim_flavour *f, struct sha256 *h)
{
    char tool[8192], key[16384];
    struct stat self = {0};
    Dl_info me;
    sim_build_tool(f, tool, sizeof tool);
    snprintf(key, sizeof key, "%s | rewritten for g++ | gcc %s | unchecked copy, rolled: %s", tool, __VERSION__,
             SIM_KERNEL_UNCHECKED_FLAGS);
    for (int i = 0; i < f->n_entries; i++)
        sha256_update(h, f->entries[i], strlen(f->entries[i]) + 1);
    if (dladdr((void *)sim_key, &me) && me.dli_fname)
        (void)stat(me.dli_fname, &self);
    sha256_update(h, key, strlen(key) + 1);
    sha256_update(h, &self.st_mtim, sizeof self.st_mtim);
}

/* One build's scratch folder and the temporaries in it (rtc_temp names). 0, or -1 with err. */
static int sim_temps_open(const char *dir, struct sim_temps *t, char *err, size_t errlen)
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

/* The names: the file's objects by the SHA-256 of the preprocessed source and sim_key (into
 * t), the entry's product by that and what its link takes (into path). 1 when the product is
 * in the cache, sound, and so is its unchecked copy if it has one; 0 when it must be built. */
static int sim_lookup(const struct sim_flavour *f, const char *dir, struct sim_temps *t, char *path, size_t len,
                      char *err, size_t errlen)
{
    struct sha256 h;
    unsigned char d[SHA256_BYTES];
    char upath[4200], link[4200];
    sha256_init(&h);
    sim_key(f, &h);
    if (sha256_file(&h, t->pre, err, errlen) != 0)
        return -1;
    sha256_final(&h, d);
    if (rtc_cache_name(dir, d, ".o", t->c_obj, sizeof t->c_obj) < 0 ||
        rtc_cache_name(dir, d, ".unchecked.o", t->c_uobj, sizeof t->c_uobj) < 0 ||
        rtc_cache_name(dir, d, ".lock", t->lock, sizeof t->lock) < 0 ||
        rtc_cache_name(dir, d, ".failed", t->failed, sizeof t->failed) < 0) {
        snprintf(err, errlen, "cache path too long in %.300s", dir);
        return -1;
    }
    sha256_init(&h);
    sha256_update(&h, d, sizeof d);
    snprintf(link, sizeof link, "entry %s | shared %u | link %s", f->s->entry, f->s->shared_bytes, sim_link_flags(f));
    sha256_update(&h, link, strlen(link) + 1);
    sha256_final(&h, d);
    int have = rtc_cache_name(dir, d, ".so", path, len);
    if (have < 0)
        snprintf(err, errlen, "cache path too long in %.300s", dir);
    if (have > 0 && sim_unchecked_path(path, upath, sizeof upath) == 0 && access(upath, F_OK) == 0 &&
        !rtc_product_ok(upath))
        have = 0;
    return have;
}

/* What a failed build says: the feature the emulator lacks (sim_why), its log kept beside
 * the cache's products. The status. */
static int sim_failed(struct hb_ctx *c, const struct sim_flavour *f, const char *dir, struct sim_temps *t, int rc,
                      const char *err)
{
    char kept[4200], why[1024], stem[4200];
    if (rc == 2 || rc < 0) {
        if (rc == 2)
            sim_err(c, "%s", err);
        else
            sim_err(c, "run-time compile of %s: %s", f->s->source_path, err);
        return HB_ERROR;
    }
    const char *base = strrchr(f->s->source_path, '/');
    snprintf(stem, sizeof stem, "%s/%s", dir, base ? base + 1 : f->s->source_path);
    if (rtc_keep(t->log, stem, ".log", kept, sizeof kept) != 0)
        snprintf(kept, sizeof kept, "%s", t->log);
    /* A feature the emulator does not model is a SKIP that names it, a user's kernel's too (a
     * run in which nothing else runs exits 4, never 0); any other failure of a user's build is
     * the user's to fix. */
    /* A full disk is the machine's, never a SKIP: the kernel may build anywhere else. */
    if (sim_no_space(kept, err, why, sizeof why)) {
        sim_err(c, "%s", why);
        return HB_ERROR;
    }
    int unmodelled = sim_why(f, kept, err, why, sizeof why);
    sim_err(c, "%s", why);
    return unmodelled || !f->user ? HB_UNSUPPORTED : HB_ERROR;
}

/* One attempt at f's product: preprocess, look it up, else link it from the file's objects
 * (compiled if need be). Returns as sim_steps; *compiled as there. */
static int sim_attempt(const struct sim_flavour *f, const char *dir, struct sim_temps *t, char *path, size_t len,
                       int *compiled, char *err, size_t errlen)
{
    *compiled = 0;
    int rc = sim_preprocess(f, t, err, errlen);
    int have = rc == 0 ? sim_lookup(f, dir, t, path, len, err, errlen) : 0;
    if (have < 0)
        return -1;
    return rc != 0 || have ? rc : sim_steps(f, path, t, compiled, err, errlen);
}

int sim_build(struct hb_ctx *c, struct sim_flavour *f, char *path, size_t len, char *log, size_t loglen, char *obj,
              size_t objlen)
{
    char dir[2048], err[1024] = "";
    struct sim_temps t;
    memset(&t, 0, sizeof t);
    log[0] = obj[0] = '\0';
    if (rtc_cache_dir(f->s, "sim", dir, sizeof dir, err, sizeof err) != 0) {
        sim_err(c, "%s", err);
        return HB_ERROR;
    }
    int compiled = 0, rc = sim_temps_open(dir, &t, err, sizeof err);
    if (rc == 0)
        rc = sim_attempt(f, dir, &t, path, len, &compiled, err, sizeof err);
    if (rc == 1 && f->n_entries > 1) { /* a sibling's entry may be what fails: f's alone */
        f->n_entries = 1;
        f->entries = &f->s->entry;
        rtc_scratch_close(t.scratch);
        memset(&t, 0, sizeof t);
        rc = sim_temps_open(dir, &t, err, sizeof err);
        if (rc == 0)
            rc = sim_attempt(f, dir, &t, path, len, &compiled, err, sizeof err);
    }
    /* Users' warnings are not fatal, but stay readable next to the product. */
    if (rc == 0 && compiled && sim_file_size(t.log) > 0)
        rtc_keep(t.log, path, ".log", log, loglen);
    if (rc == 0)
        snprintf(obj, objlen, "%s", t.c_obj);
    if (rc != 0)
        rc = sim_failed(c, f, dir, &t, rc, err);
    rtc_scratch_close(t.scratch);
    return rc;
}
