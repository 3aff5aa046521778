/* rtc.c: the run-time compile helpers of rtc.h: staleness against the prebuilt product, the
 * per-user cache folder and its hashed names, and posix_spawn of a compiler with its output
 * in a log file. No shell is involved, so paths need no quoting. It runs no GPU API. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtc.h"

static int rtc_stem(const char *source, const char **base)
{
    const char *b = strrchr(source, '/');
    *base = b ? b + 1 : source;
    const char *dot = strrchr(*base, '.');
    return dot && dot != *base ? (int)(dot - *base) : (int)strlen(*base);
}

int rtc_prebuilt(const struct hb_kernel_spec *s, const char *sub, const char *ext, char *path,
                 size_t len, char *err, size_t errlen)
{
    const char *base;
    int stem = rtc_stem(s->source_path, &base);
    int n = snprintf(path, len, "%s/kernels/%s/%.*s%s", s->build_dir ? s->build_dir : ".", sub,
                     stem, base, ext);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "kernel path too long for %s", s->source_path);
        return -1;
    }
    struct stat src, obj;
    if (stat(s->source_path, &src) != 0) {
        snprintf(err, errlen, "stat(%s): %s", s->source_path, strerror(errno));
        return -1;
    }
    return stat(path, &obj) == 0 && obj.st_mtime >= src.st_mtime;
}

/* FNV-1a: stable across runs and machines, and collisions between a user's few kernels
 * are not a concern at 64 bits. */
static uint64_t rtc_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

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

int rtc_cache_path(const struct hb_kernel_spec *s, const char *backend, const char *key,
                   const char *ext, char *path, size_t len, char *err, size_t errlen)
{
    struct stat src, self = {0};
    if (stat(s->source_path, &src) != 0) {
        snprintf(err, errlen, "stat(%s): %s", s->source_path, strerror(errno));
        return -1;
    }
    Dl_info me;
    if (dladdr((void *)rtc_hash, &me) && me.dli_fname)
        (void)stat(me.dli_fname, &self);
    uint64_t h = 0xcbf29ce484222325ull;
    h = rtc_hash(h, s->source_path, strlen(s->source_path) + 1);
    h = rtc_hash(h, &src.st_mtim, sizeof src.st_mtim);
    h = rtc_hash(h, &src.st_size, sizeof src.st_size);
    h = rtc_hash(h, key, strlen(key) + 1);
    h = rtc_hash(h, &self.st_mtim, sizeof self.st_mtim);

    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dirs[3][2048];
    int nd = 0;
    if (xdg && *xdg == '/')
        snprintf(dirs[nd++], sizeof dirs[0], "%s/gpu-harness/%s", xdg, backend);
    else if (home && *home == '/')
        snprintf(dirs[nd++], sizeof dirs[0], "%s/.cache/gpu-harness/%s", home, backend);
    if (s->build_dir)
        snprintf(dirs[nd++], sizeof dirs[0], "%s/kernels/runtime/%s", s->build_dir, backend);
    for (int i = 0; i < nd; i++) {
        if (rtc_mkdirs(dirs[i]) != 0)
            continue;
        int n = snprintf(path, len, "%s/%016llx%s", dirs[i], (unsigned long long)h, ext);
        if (n < 0 || (size_t)n >= len)
            break;
        return access(path, R_OK) == 0;
    }
    snprintf(err, errlen, "no writable cache folder for run-time compiles (tried %s%s%s)",
             nd ? dirs[0] : "none: no XDG_CACHE_HOME, HOME or build_dir", nd > 1 ? " and " : "",
             nd > 1 ? dirs[1] : "");
    return -1;
}

void rtc_first_error(const char *text, char *out, size_t len)
{
    const char *line = text, *pick = NULL;
    while (*line && !pick) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (memmem(line, n, "error", 5))
            pick = line;
        line = end ? end + 1 : line + n;
    }
    if (!pick)
        pick = text;
    while (*pick == ' ' || *pick == '\t' || *pick == '\n')
        pick++;
    size_t n = strcspn(pick, "\n");
    snprintf(out, len, "%.*s", (int)n, pick);
}

int rtc_run(char *const argv[], const char *log, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(err, errlen, "posix_spawn(%s): %s", argv[0], strerror(rc));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errlen, "waitpid(%s): %s", argv[0], strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char text[8192] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    if (text[0])
        rtc_first_error(text, err, errlen);
    else if (WIFSIGNALED(status))
        snprintf(err, errlen, "%s killed by signal %d", argv[0], WTERMSIG(status));
    else
        snprintf(err, errlen, "%s exited with status %d", argv[0], WEXITSTATUS(status));
    return 1;
}

int rtc_build(char *argv[], int out_arg, const char *path, char *err, size_t errlen)
{
    char tmp[4096], log[4096];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    snprintf(log, sizeof log, "%s.%ld.log", path, (long)getpid());
    argv[out_arg] = tmp;
    int rc = rtc_run(argv, log, err, errlen);
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, errlen, "rename(%.300s): %s", tmp, strerror(errno));
        rc = -1;
    }
    unlink(tmp);
    if (rc > 0) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " (log: %s)", log);
    } else {
        unlink(log);
    }
    return rc;
}

int rtc_split(const char *flags, char *buf, size_t buflen, char **words, int max)
{
    int len = snprintf(buf, buflen, "%s", flags);
    if (len < 0 || (size_t)len >= buflen)
        return -1;
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n == max)
            return -1;
        words[n++] = w;
    }
    return n;
}
