/* SPDX-License-Identifier: MIT */
/* rtc_cache.c: the run-time compile cache of rtc.h: its per-user folder (checked to be ours
 * alone), products named by the SHA-256 of what their build read (the source preprocessed by
 * its own compile command, so its headers count), a product's seal (its own SHA-256, checked
 * before it is used: a damaged or planted object is rebuilt, never loaded) and each build's
 * scratch folder, which a build killed halfway leaves for the next one to remove. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtc.h"

/* mkdir -p for the cache folder; 0 when it exists and is writable at the end. */
static int rtc_mkdirs(char *dir)
{
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(dir, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -1;
    return access(dir, W_OK | X_OK);
}

/* Why st may not be trusted: not ours, or writable by others (NULL: it may). */
static const char *rtc_foreign(const struct stat *st)
{
    return st->st_uid != geteuid() ? "is owned by another user" : (st->st_mode & 022) ? "is writable by others" : NULL;
}

/* The cache folder and its parent must be ours alone: nobody else may plant a product. */
static int rtc_safe_dir(const char *dir, char *err, size_t errlen)
{
    char d[PATH_MAX];
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d) {
        snprintf(err, errlen, "cache folder path too long");
        return -1;
    }
    for (int level = 0; level < 2; level++) {
        struct stat st;
        if (lstat(d, &st) != 0) {
            snprintf(err, errlen, "cache folder %s: %s", d, strerror(errno));
            return -1;
        }
        const char *why = S_ISLNK(st.st_mode)    ? "is a symbolic link"
                          : !S_ISDIR(st.st_mode) ? "is not a folder"
                                                 : rtc_foreign(&st);
        if (why) {
            snprintf(err, errlen, "refusing the run-time compile cache %s: %s (uid %ld, mode %03o)", d, why,
                     (long)st.st_uid, (unsigned)(st.st_mode & 0777));
            return -1;
        }
        char *slash = strrchr(d, '/');
        if (!slash || slash == d)
            break;
        *slash = '\0';
    }
    return 0;
}

/* Whether path is an existing folder: a cache goes inside one, never makes it. */
static int rtc_is_dir(const char *path)
{
    struct stat st;
    return path && *path == '/' && !stat(path, &st) && S_ISDIR(st.st_mode);
}

int rtc_cache_dir(const struct hb_kernel_spec *s, const char *backend, char *dir, size_t len, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
    char dirs[3][2048];
    int nd = 0;
    if (xdg && *xdg == '/')
        snprintf(dirs[nd++], sizeof dirs[0], "%s/gpu-harness/%s", xdg, backend);
    else if (rtc_is_dir(home))
        snprintf(dirs[nd++], sizeof dirs[0], "%s/.cache/gpu-harness/%s", home, backend);
    else /* HOME missing (as root, making it would make the whole path): a folder of our own in TMPDIR */
        snprintf(dirs[nd++], sizeof dirs[0], "%s/gpu-harness-%ld/%s", rtc_is_dir(tmp) ? tmp : "/tmp", (long)geteuid(),
                 backend);
    if (s->build_dir)
        snprintf(dirs[nd++], sizeof dirs[0], "%s/kernels/runtime/%s", s->build_dir, backend);
    for (int i = 0; i < nd; i++) {
        if (rtc_mkdirs(dirs[i]) != 0)
            continue;
        if (rtc_safe_dir(dirs[i], err, errlen) != 0)
            return -1;
        if (snprintf(dir, len, "%s", dirs[i]) >= (int)len)
            break;
        return 0;
    }
    snprintf(err, errlen, "no writable cache folder for run-time compiles (tried %s%s%s)", dirs[0],
             nd > 1 ? " and " : "", nd > 1 ? dirs[1] : "");
    return -1;
}

/* The SHA-256 a product's seal records, as hex, into out (SHA256_HEX bytes). 0 or -1. */
static int rtc_read_seal(const char *path, char *out)
{
    char name[PATH_MAX + 16];
    struct stat st;
    snprintf(name, sizeof name, "%s.sha256", path);
    FILE *f = fopen(name, "re");
    int ok = f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && !rtc_foreign(&st) &&
             fread(out, 1, SHA256_HEX - 1, f) == SHA256_HEX - 1;
    if (f)
        fclose(f);
    out[SHA256_HEX - 1] = '\0';
    return ok ? 0 : -1;
}

/* path's SHA-256 as hex into out. 0, or -1 with err. */
static int rtc_digest_file(const char *path, char *out, char *err, size_t errlen)
{
    struct sha256 h;
    unsigned char d[SHA256_BYTES];
    sha256_init(&h);
    if (sha256_file(&h, path, err, errlen) != 0)
        return -1;
    sha256_final(&h, d);
    sha256_hex(d, out);
    return 0;
}

int rtc_product_ok(const char *path)
{
    struct stat st;
    char want[SHA256_HEX], have[SHA256_HEX], why[256];
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || rtc_foreign(&st))
        return 0;
    return rtc_read_seal(path, want) == 0 && rtc_digest_file(path, have, why, sizeof why) == 0 && !strcmp(want, have);
}

int rtc_seal(const char *tmp, const char *final, char *err, size_t errlen)
{
    char hex[SHA256_HEX], name[PATH_MAX + 16], seal_tmp[PATH_MAX + 32];
    snprintf(name, sizeof name, "%s.sha256", final);
    if (rtc_digest_file(tmp, hex, err, errlen) != 0 || rtc_temp(name, "", seal_tmp, sizeof seal_tmp, err, errlen) != 0)
        return -1;
    /* Built with the user's umask; a product writable by others would never be trusted. */
    struct stat st;
    if (stat(tmp, &st) != 0 || chmod(tmp, st.st_mode & 0755) != 0) {
        snprintf(err, errlen, "%.300s: %s", tmp, strerror(errno));
        unlink(seal_tmp);
        return -1;
    }
    FILE *f = fopen(seal_tmp, "w");
    int rc = f && fprintf(f, "%s\n", hex) > 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    /* The seal first: a reader between the two renames sees an old product under a new seal,
     * a mismatch that rebuilds, never a new product taken on an old seal's word. */
    if (rc == 0 && (rename(seal_tmp, name) != 0 || rename(tmp, final) != 0))
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "sealing %.300s: %s", final, strerror(errno));
        unlink(seal_tmp);
    }
    return rc;
}

int rtc_cache_name(const char *dir, const unsigned char digest[SHA256_BYTES], const char *ext, char *path, size_t len)
{
    /* The first 128 bits name it: no collision among a user's kernels, and a name short
     * enough that the report's line on the binary that ran keeps the compiler flags. */
    char hex[SHA256_HEX];
    sha256_hex(digest, hex);
    int n = snprintf(path, len, "%s/%.32s%s", dir, hex, ext);
    if (n < 0 || (size_t)n >= len)
        return -1;
    return rtc_product_ok(path);
}

/* The product's name: the SHA-256 of the source's real path and bytes (a FIFO or folder is
 * refused here, before a preprocessor could block on it), key, the compiler's file (an
 * upgrade in place), this backend's own build (a rebuilt backend never reuses stale objects)
 * and the preprocessed text at pre. 1, 0 or -1 as rtc_cache_name. */
static int rtc_name_product(const char *real, const char *key, const char *tool, const char *pre, const char *dir,
                            const char *ext, char *path, size_t len, char *err, size_t errlen)
{
    struct sha256 h;
    unsigned char d[SHA256_BYTES];
    struct stat self = {0}, compiler = {0};
    Dl_info me;
    if (dladdr((void *)rtc_name_product, &me) && me.dli_fname)
        (void)stat(me.dli_fname, &self);
    if (strchr(tool, '/'))
        (void)stat(tool, &compiler);
    sha256_init(&h);
    sha256_update(&h, real, strlen(real) + 1);
    if (sha256_file(&h, real, err, errlen) != 0)
        return -1;
    sha256_update(&h, key, strlen(key) + 1);
    sha256_update(&h, &self.st_mtim, sizeof self.st_mtim);
    sha256_update(&h, &compiler.st_size, sizeof compiler.st_size);
    sha256_update(&h, &compiler.st_mtim, sizeof compiler.st_mtim);
    if (sha256_file(&h, pre, err, errlen) != 0)
        return -1;
    sha256_final(&h, d);
    int have = rtc_cache_name(dir, d, ext, path, len);
    if (have < 0)
        snprintf(err, errlen, "cache path too long in %.300s", dir);
    return have;
}

/* A preprocessing run's scratch folder, its output and its log. */
struct rtc_pre_files {
    char scratch[PATH_MAX], pre[PATH_MAX + 32], log[PATH_MAX + 32];
};

/* Runs the preprocessor (argv, its output slot out_at) in a fresh scratch folder of dir, the
 * output and the log in f. As rtc_run, or -1 with err. */
static int rtc_preprocess(char *argv[], int out_at, const char *dir, struct rtc_pre_files *f, char *err, size_t errlen)
{
    char stem[PATH_MAX + 8];
    if (rtc_scratch_open(dir, f->scratch, sizeof f->scratch, err, errlen) != 0)
        return -1;
    snprintf(stem, sizeof stem, "%s/pre", f->scratch);
    if (rtc_temp(stem, ".i", f->pre, sizeof f->pre, err, errlen) != 0 ||
        rtc_temp(stem, ".log", f->log, sizeof f->log, err, errlen) != 0)
        return -1;
    argv[out_at] = f->pre;
    return rtc_run(argv, f->log, err, errlen);
}

int rtc_cache_lookup(const struct hb_kernel_spec *s, const char *backend, char *const *words, int n, const char *key,
                     const char *ext, char *path, size_t len, char *err, size_t errlen)
{
    char real[PATH_MAX], dir[2048], stem[PATH_MAX + 2100], kept[PATH_MAX + 2200];
    char *argv[RTC_MAX_WORDS + 6];
    struct rtc_pre_files f;
    f.scratch[0] = '\0';
    if (n < 1 || n > RTC_MAX_WORDS) {
        snprintf(err, errlen, "%s: %d compiler words (1 to %d)", s->name, n, RTC_MAX_WORDS);
        return -1;
    }
    if (!realpath(s->source_path, real)) {
        snprintf(err, errlen, "%s: %s", s->source_path, strerror(errno));
        return -1;
    }
    if (rtc_cache_dir(s, backend, dir, sizeof dir, err, errlen) != 0)
        return -1;
    /* The compile's own command with -E: the source and every header it includes, found
     * through the same -I, -D and target as the compile that would follow. */
    memcpy(argv, words, (size_t)n * sizeof *argv);
    argv[n] = "-E", argv[n + 1] = (char *)s->source_path, argv[n + 2] = "-o", argv[n + 3] = NULL, argv[n + 4] = NULL;
    int rc = rtc_preprocess(argv, n + 3, dir, &f, err, errlen);
    if (rc == 0)
        rc = rtc_name_product(real, key, words[0], f.pre, dir, ext, path, len, err, errlen);
    else if (rc > 0) {
        /* What the compile would say: its log kept, named after the source. */
        const char *base = strrchr(real, '/');
        snprintf(stem, sizeof stem, "%s/%s", dir, base ? base + 1 : real);
        if (rtc_keep(f.log, stem, ".log", kept, sizeof kept) == 0) {
            size_t used = strlen(err);
            snprintf(err + used, errlen - used, " (log: %s)", kept);
        }
        rc = 2;
    }
    rtc_scratch_close(f.scratch);
    return rc;
}

/* Removes a folder of plain files (a scratch folder). */
static void rtc_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char name[PATH_MAX + 256];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(name, sizeof name, "%s/%s", dir, e->d_name);
            unlink(name);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The scratch folders in dir of processes on this host that no longer run. */
static void rtc_sweep(const char *dir, const char *host)
{
    char prefix[300], name[PATH_MAX + 256];
    int plen = snprintf(prefix, sizeof prefix, "tmp.%s.", host);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
            continue;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (*end != '.' || pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(name, sizeof name, "%s/%s", dir, e->d_name);
        rtc_remove_dir(name);
    }
    if (d)
        closedir(d);
}

int rtc_scratch_open(const char *dir, char *out, size_t len, char *err, size_t errlen)
{
    char host[256] = "host";
    if (gethostname(host, sizeof host - 1) != 0 || strchr(host, '/'))
        snprintf(host, sizeof host, "host");
    rtc_sweep(dir, host);
    int n = snprintf(out, len, "%s/tmp.%s.%ld.XXXXXX", dir, host, (long)getpid());
    if (n < 0 || (size_t)n >= len || !mkdtemp(out)) {
        snprintf(err, errlen, "scratch folder in %.300s: %s", dir,
                 n < 0 || (size_t)n >= len ? "name too long" : strerror(errno));
        return -1;
    }
    return 0;
}

void rtc_scratch_close(const char *scratch)
{
    if (scratch[0])
        rtc_remove_dir(scratch);
}

int rtc_keep(const char *file, const char *path, const char *suffix, char *out, size_t len)
{
    char err[256];
    if (rtc_temp(path, suffix, out, len, err, sizeof err) != 0 || rename(file, out) != 0) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}
