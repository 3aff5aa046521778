/* rtc.c: the run-time compile helpers of rtc.h: whether a prebuilt product is the given
 * file's, the per-user cache folder (checked to be ours) and its content-hashed names,
 * unpredictable temporaries, and posix_spawn of a compiler with its output in a log file. No
 * shell is involved, so paths need no quoting. It runs no GPU API. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
        const char *why = S_ISLNK(st.st_mode)      ? "is a symbolic link"
                          : !S_ISDIR(st.st_mode)   ? "is not a folder"
                          : st.st_uid != geteuid() ? "is owned by another user"
                          : (st.st_mode & 022)     ? "is writable by others"
                                                   : NULL;
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

/* The next file name of a make-style depfile (words separated by blanks and escaped
 * newlines, "\\ " inside a name); NULL at the end. Targets end in ':' (the caller skips them). */
static const char *rtc_dep_word(const char **p, char *out, size_t len)
{
    const char *q = *p;
    size_t n = 0;
    while (*q == ' ' || *q == '\t' || *q == '\n' || (*q == '\\' && q[1] == '\n'))
        q += *q == '\\' ? 2 : 1;
    if (!*q)
        return NULL;
    while (*q && *q != ' ' && *q != '\t' && *q != '\n') {
        if (*q == '\\' && q[1] == ' ')
            q++;
        if (n + 1 < len)
            out[n++] = *q;
        q++;
    }
    out[n] = '\0';
    *p = q;
    return out;
}

int rtc_deps_save(const char *path, const char *depfile, char *err, size_t errlen)
{
    char text[65536], word[PATH_MAX], tmp[PATH_MAX + 64], final[PATH_MAX + 8];
    FILE *in = fopen(depfile, "r");
    size_t got = in ? fread(text, 1, sizeof text - 1, in) : 0;
    if (in)
        fclose(in);
    text[got] = '\0';
    snprintf(final, sizeof final, "%s.deps", path);
    if (!in || got == sizeof text - 1 || rtc_temp(final, "", tmp, sizeof tmp, err, errlen) != 0) {
        if (!in || got == sizeof text - 1)
            snprintf(err, errlen, "%s: %s", depfile, in ? "too large" : strerror(errno));
        return -1;
    }
    FILE *out = fopen(tmp, "w");
    int rc = out ? 0 : -1;
    for (const char *p = text; rc == 0 && rtc_dep_word(&p, word, sizeof word);) {
        uint64_t h = RTC_FNV_BASIS;
        if (word[strlen(word) - 1] == ':')
            continue;
        rc = rtc_hash_file(word, &h, err, errlen);
        if (rc == 0)
            fprintf(out, "%016llx %s\n", (unsigned long long)h, word);
    }
    if (out && fclose(out) != 0 && rc == 0)
        rc = -1;
    if (rc == 0 && rename(tmp, final) != 0)
        rc = -1;
    if (rc != 0) {
        if (!err[0])
            snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

/* Whether every file a product's build recorded still has its content; 1 without a record. */
static int rtc_deps_current(const char *path)
{
    char name[PATH_MAX + 8], line[PATH_MAX + 32], why[256];
    snprintf(name, sizeof name, "%s.deps", path);
    FILE *in = fopen(name, "r");
    if (!in)
        return 1;
    int current = 1;
    while (current && fgets(line, sizeof line, in)) {
        unsigned long long want;
        char *file = line + 17;
        uint64_t h = RTC_FNV_BASIS;
        line[strcspn(line, "\n")] = '\0';
        current = sscanf(line, "%16llx", &want) == 1 && line[16] == ' ' &&
                  rtc_hash_file(file, &h, why, sizeof why) == 0 && h == want;
    }
    fclose(in);
    return current;
}

int rtc_cache_path(const struct hb_kernel_spec *s, const char *backend, const char *key, const char *ext, char *path,
                   size_t len, char *err, size_t errlen)
{
    char real[PATH_MAX];
    struct stat self = {0};
    if (!realpath(s->source_path, real)) {
        snprintf(err, errlen, "%s: %s", s->source_path, strerror(errno));
        return -1;
    }
    uint64_t h = rtc_hash(RTC_FNV_BASIS, real, strlen(real) + 1);
    if (rtc_hash_file(real, &h, err, errlen) != 0)
        return -1;
    Dl_info me;
    if (dladdr((void *)rtc_hash, &me) && me.dli_fname)
        (void)stat(me.dli_fname, &self);
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
        if (rtc_safe_dir(dirs[i], err, errlen) != 0)
            return -1;
        int n = snprintf(path, len, "%s/%016llx%s", dirs[i], (unsigned long long)h, ext);
        if (n < 0 || (size_t)n >= len)
            break;
        return access(path, R_OK) == 0 && rtc_deps_current(path);
    }
    snprintf(err, errlen, "no writable cache folder for run-time compiles (tried %s%s%s)",
             nd ? dirs[0] : "none: no XDG_CACHE_HOME, HOME or build_dir", nd > 1 ? " and " : "", nd > 1 ? dirs[1] : "");
    return -1;
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

void rtc_first_error(const char *text, char *out, size_t len)
{
    const char *line = text, *pick = NULL;
    while (*line && !pick) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        for (size_t i = 0; i + 5 <= n && !pick; i++)
            if (strncasecmp(line + i, "error", 5) == 0) /* gcc's "error", gas's "Error" */
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
    char tmp[4200], log[4200];
    if (rtc_temp(path, "", tmp, sizeof tmp, err, errlen) != 0)
        return -1;
    if (rtc_temp(path, ".log", log, sizeof log, err, errlen) != 0) {
        unlink(tmp);
        return -1;
    }
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
