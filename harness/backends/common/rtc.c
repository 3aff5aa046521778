/* SPDX-License-Identifier: MIT */
/* rtc.c: the run-time compile helpers of rtc.h: whether a prebuilt product is the given
 * file's, unpredictable temporaries, and posix_spawn of a compiler with its output in a log
 * file (the cache itself is rtc_cache.c's). No shell is involved, so paths need no quoting.
 * It runs no GPU API. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtc.h"

/* FNV-1a: stable across runs and machines, and collisions between a user's few kernels
 * are not a concern at 64 bits. */
#define RTC_FNV_BASIS 0xcbf29ce484222325ull
static uint64_t rtc_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Bounds what a source may be: a folder, a FIFO or /dev/zero is refused, not read forever. */
#define RTC_MAX_SOURCE (64u << 20)

/* Folds the file's content into *h. 0, or -1 with err. */
static int rtc_hash_file(const char *path, uint64_t *h, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)RTC_MAX_SOURCE) {
        snprintf(err, errlen, "%s: %s", path, S_ISREG(st.st_mode) ? "larger than 64 MiB" : "not a regular file");
        close(fd);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        *h = rtc_hash(*h, buf, (size_t)n);
    int rc = n < 0 ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "read(%s): %s", path, strerror(errno));
    close(fd);
    return rc;
}

/* The repository root: $HB_ROOT, else the build folder's parent (as the core finds it). */
static int rtc_root(const struct hb_kernel_spec *s, char *out)
{
    const char *env = getenv("HB_ROOT");
    char guess[PATH_MAX];
    if (env && *env)
        snprintf(guess, sizeof guess, "%s", env);
    else
        snprintf(guess, sizeof guess, "%s/..", s->build_dir ? s->build_dir : ".");
    return realpath(guess, out) ? 0 : -1;
}

int rtc_shipped(const struct hb_kernel_spec *s)
{
    char real[PATH_MAX], root[PATH_MAX], dir[PATH_MAX + 32], want[PATH_MAX];
    if (!realpath(s->source_path, real) || rtc_root(s, root) != 0)
        return 0;
    /* The folders of kernels/README.md, which the backend.mk rules build from. */
    const char *folder = !strcmp(s->lang, "glsl") || !strcmp(s->lang, "spirv") ? "vulkan" : s->lang;
    snprintf(dir, sizeof dir, "%s/kernels/%s", root, folder);
    if (!realpath(dir, want))
        return 0;
    size_t n = strlen(want);
    return strncmp(real, want, n) == 0 && real[n] == '/' && !strchr(real + n + 1, '/');
}

int rtc_user_flags(const struct hb_kernel_spec *s, char *buf, size_t buflen, char **argv, int max)
{
    int n = 0;
    size_t used = 0;
    for (int i = 0; i < s->n_includes + s->n_defines; i++) {
        int inc = i < s->n_includes;
        const char *word = inc ? s->includes[i] : s->defines[i - s->n_includes];
        int w = snprintf(buf + used, buflen - used, "%s%s", inc ? "-I" : "-D", word);
        if (n == max || w < 0 || (size_t)w >= buflen - used)
            return -1;
        argv[n++] = buf + used;
        used += (size_t)w + 1;
    }
    return n;
}

int rtc_prebuilt(const struct hb_kernel_spec *s, const char *sub, const char *ext, char *path, size_t len, char *err,
                 size_t errlen)
{
    const char *base = strrchr(s->source_path, '/');
    base = base ? base + 1 : s->source_path;
    const char *dot = strrchr(base, '.');
    int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    int n = snprintf(path, len, "%s/kernels/%s/%.*s%s", s->build_dir ? s->build_dir : ".", sub, stem, base, ext);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "kernel path too long for %s", s->source_path);
        return -1;
    }
    struct stat src, obj;
    if (stat(s->source_path, &src) != 0) {
        snprintf(err, errlen, "stat(%s): %s", s->source_path, strerror(errno));
        return -1;
    }
    /* make builds each shipped source once, with no folders or macros of a manifest's. */
    if (!rtc_shipped(s) || s->n_includes || s->n_defines || stat(path, &obj) != 0)
        return 0;
    return obj.st_mtim.tv_sec > src.st_mtim.tv_sec ||
           (obj.st_mtim.tv_sec == src.st_mtim.tv_sec && obj.st_mtim.tv_nsec >= src.st_mtim.tv_nsec);
}

int rtc_temp(const char *path, const char *suffix, char *out, size_t len, char *err, size_t errlen)
{
    int n = snprintf(out, len, "%s.XXXXXX%s", path, suffix);
    int fd = n < 0 || (size_t)n >= len ? -1 : mkstemps(out, (int)strlen(suffix));
    if (fd < 0) {
        snprintf(err, errlen, "mkstemps(%.300s): %s", out,
                 n < 0 || (size_t)n >= len ? "name too long" : strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

int rtc_describe(const struct hb_kernel_spec *s, const char *binary, const char *how, const char *tool, char *out,
                 size_t len)
{
    char why[300];
    uint64_t h = RTC_FNV_BASIS;
    int rc = rtc_hash_file(s->source_path, &h, why, sizeof why);
    if (rc == 0)
        snprintf(why, sizeof why, "%016llx", (unsigned long long)h);
    snprintf(out, len, "binary %s (%s); source %s fnv1a64 %s; built by %s", binary, how, s->source_path, why, tool);
    return rc;
}

/* "error :" or "fatal :" at w (nvcc's and ptxas's spelling). */
static int rtc_error_word(const char *w)
{
    if (strncmp(w, "error", 5) && strncmp(w, "fatal", 5))
        return 0;
    w += 5;
    return w[strspn(w, " \t")] == ':';
}

/* Whether a compiler's line (n bytes) reports an error: "file:1:2: error: ...", "cc1plus: fatal
 * error: ...", gas's "file:3: Error: ...", a driver's "error: ...", nvcc's "file(3): error: ..."
 * and "nvcc fatal   : ...", glslc's "file:6: error: ...". A line that only holds the word, as a
 * path may ("h_error.cu: In function 'f':"), is not one. lib/cref.c's cref_is_error keeps the
 * same rule for C references (a backend includes nothing of the core). */
static int rtc_is_error(const char *line, size_t n)
{
    char text[1024];
    snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text ? n : sizeof text - 1), line);
    const char *t = text + strspn(text, " \t");
    if (!strncmp(t, "fatal error:", 12) || strstr(t, ": error:") || strstr(t, ": fatal error:") ||
        strstr(t, ": Error:"))
        return 1;
    const char *word = t + strcspn(t, " \t:"); /* a tool's name, then "error :" */
    return rtc_error_word(t) || rtc_error_word(word + strspn(word, " \t"));
}

void rtc_first_error(const char *text, char *out, size_t len)
{
    const char *line = text, *pick = NULL, *last = text;
    while (*line && !pick) {
        size_t n = strcspn(line, "\n");
        if (rtc_is_error(line, n))
            pick = line;
        else if (line[strspn(line, " \t")] != '\n' && line[strspn(line, " \t")])
            last = line;
        line += n + (line[n] == '\n');
    }
    if (!pick)
        pick = last;
    pick += strspn(pick, " \t");
    size_t n = strcspn(pick, "\n");
    snprintf(out, len, "%.*s", (int)n, pick);
}

int rtc_have(const char *tool)
{
    if (strchr(tool, '/'))
        return access(tool, X_OK) == 0;
    const char *path = getenv("PATH");
    char dir[PATH_MAX];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        int m = snprintf(dir, sizeof dir, "%.*s/%s", (int)n, p, tool);
        if (n && m > 0 && (size_t)m < sizeof dir && access(dir, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

int rtc_run(char *const argv[], const char *log, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
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
    char scratch[PATH_MAX], stem[PATH_MAX + 8], tmp[PATH_MAX + 32], log[PATH_MAX + 32], kept[4200];
    const char *slash = strrchr(path, '/');
    snprintf(stem, sizeof stem, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (rtc_scratch_open(stem, scratch, sizeof scratch, err, errlen) != 0)
        return -1;
    snprintf(stem, sizeof stem, "%s/out", scratch);
    int rc = rtc_temp(stem, "", tmp, sizeof tmp, err, errlen) || rtc_temp(stem, ".log", log, sizeof log, err, errlen)
                 ? -1
                 : 0;
    if (rc == 0) {
        argv[out_arg] = tmp;
        rc = rtc_run(argv, log, err, errlen);
    }
    if (rc == 0 && rtc_seal(tmp, path, err, errlen) != 0)
        rc = -1;
    /* A failed compile's log stays, beside the product it did not make. */
    if (rc > 0 && rtc_keep(log, path, ".log", kept, sizeof kept) == 0) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " (log: %s)", kept);
    }
    rtc_scratch_close(scratch);
    return rc;
}

int rtc_wrapper(const struct hb_kernel_spec *s, const char *obj, const char *ext, char *path, size_t len, char *err,
                size_t errlen)
{
    if (!strchr(s->entry, '<')) {
        snprintf(path, len, "%s", s->source_path);
        return 0;
    }
    /* A name of its own: workers compiling the same entry at once must not share it. */
    if (rtc_temp(obj, ext, path, len, err, errlen) != 0)
        return -1;
    FILE *f = fopen(path, "w");
    if (!f ||
        fprintf(f, "#include \"%s\"\nstatic auto *const hb_instantiate_entry = &%s;\n", s->source_path, s->entry) < 0 ||
        fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %.400s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void rtc_key(const struct hb_kernel_spec *s, char *const *argv, int n, char *key, size_t len)
{
    rtc_join(argv, n, key, len);
    size_t used = strlen(key);
    if (strchr(s->entry, '<') && used < len)
        snprintf(key + used, len - used, " entry %s", s->entry);
}

void rtc_join(char *const *words, int n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", words[i]);
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
