/* SPDX-License-Identifier: MIT */
/* sim_build.c: run-time builds of kernel sources for the emulator into the per-user cache
 * (rtc.h), as nvcc and hipcc would build users' sources: runtime header included, no -Werror,
 * whole files with their host code (sim_rewrite.c, sim_host.h), the entries wrapped
 * (sim_wrap.cc) for C++ names, templates and declared parameters. A user's file is compiled
 * once, checked and unchecked, for every entry its manifests give it (the objects cached by
 * the SHA-256 of the preprocessed source, one build at a time under a lock, so workers share
 * it); each entry's product is then linked from them (sim_link.c). The steps themselves are
 * make's too (sim_steps.c); the cache, its keys and locks are this file's alone. A failed build
 * gets its unmodelled feature named (sim_why.c). No dlopen here. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtc.h"
#include "sim_build.h"

/* One build's files (sim_files_open) and the cached objects of the file (sim_lookup). */
struct sim_temps {
    struct sim_files f;
    char c_obj[4200], c_uobj[4200], lock[4200], failed[4200]; /* in the cache */
};

/* The unchecked object of a compiled file, as make's builds make a shipped kernel's g++ copy
 * (sim_kernel_main.c), sealed into the cache; none for an object that makes volatile accesses,
 * or one the compiler refuses (the repeats then run checked). Its own log is dropped: the
 * checked build's already shows the source's warnings. 0, or -1 with err. */
static int sim_unchecked(const struct sim_flavour *f, struct sim_temps *t, char *err, size_t errlen)
{
    int calls = sim_elf_calls_volatile(t->f.obj, err, errlen);
    if (calls != 0)
        return calls < 0 ? -1 : 0;
    int rc = sim_compile_unchecked(f, &t->f, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : (err[0] = '\0', 0);
    return rtc_seal(t->f.u_obj, t->c_uobj, err, errlen);
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
        rc = sim_compile(f, &t->f, err, errlen);
        if (rc == 0 && (sim_unchecked(f, t, err, errlen) != 0 || rtc_seal(t->f.obj, t->c_obj, err, errlen) != 0))
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
static int sim_product(const struct sim_flavour *f, const char *path, struct sim_temps *t, int *compiled, char *err,
                       size_t errlen)
{
    int rc = sim_objects(f, t, compiled, err, errlen);
    if (rc != 0)
        return rc;
    struct sim_objects o = {t->f.scratch, t->c_obj, rtc_product_ok(t->c_uobj) ? t->c_uobj : NULL};
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
    if (sha256_file(&h, t->f.pre, err, errlen) != 0)
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
    if (rtc_keep(t->f.log, stem, ".log", kept, sizeof kept) != 0)
        snprintf(kept, sizeof kept, "%s", t->f.log);
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
 * (compiled if need be). Returns as sim_product; *compiled as there. */
static int sim_attempt(const struct sim_flavour *f, const char *dir, struct sim_temps *t, char *path, size_t len,
                       int *compiled, char *err, size_t errlen)
{
    *compiled = 0;
    int rc = sim_preprocess(f, &t->f, NULL, NULL, err, errlen);
    int have = rc == 0 ? sim_lookup(f, dir, t, path, len, err, errlen) : 0;
    if (have < 0)
        return -1;
    return rc != 0 || have ? rc : sim_product(f, path, t, compiled, err, errlen);
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
    int compiled = 0, rc = sim_files_open(dir, &t.f, err, sizeof err);
    if (rc == 0)
        rc = sim_attempt(f, dir, &t, path, len, &compiled, err, sizeof err);
    if (rc == 1 && f->n_entries > 1) { /* a sibling's entry may be what fails: f's alone */
        f->n_entries = 1;
        f->entries = &f->s->entry;
        rtc_scratch_close(t.f.scratch);
        memset(&t, 0, sizeof t);
        rc = sim_files_open(dir, &t.f, err, sizeof err);
        if (rc == 0)
            rc = sim_attempt(f, dir, &t, path, len, &compiled, err, sizeof err);
    }
    /* Users' warnings are not fatal, but stay readable next to the product. */
    if (rc == 0 && compiled && sim_file_size(t.f.log) > 0)
        rtc_keep(t.f.log, path, ".log", log, loglen);
    if (rc == 0)
        snprintf(obj, objlen, "%s", t.c_obj);
    if (rc != 0)
        rc = sim_failed(c, f, dir, &t, rc, err);
    rtc_scratch_close(t.f.scratch);
    return rc;
}
