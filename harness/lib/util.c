/* SPDX-License-Identifier: MIT */
/* util.c: see util.h. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void err_set(struct hb_err *e, const char *fmt, ...)
{
    if (!e)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "harness: out of memory (%zu x %zu bytes)\n", n, size);
        exit(2);
    }
    return p;
}

void *xgrow(void *p, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : 16;
    void *grown = realloc(p, (size_t)*cap * elem);
    if (!grown) {
        fprintf(stderr, "harness: out of memory (%d x %zu bytes)\n", *cap, elem);
        exit(2);
    }
    return grown;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p) {
        fprintf(stderr, "harness: out of memory\n");
        exit(2);
    }
    return p;
}

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const char *path_exe_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("HB_BUILD_DIR");
    if (!dir[0] && env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) {
            strcpy(dir, ".");
        } else {
            dir[n] = 0;
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = 0;
        }
    }
    return dir;
}

/* An installed harness (make install) runs as PREFIX/lib/gpu-harness/harness, its data in
 * PREFIX/share/gpu-harness: 1 with that folder in root, else 0. */
static int path_installed_root(char *root, size_t len)
{
    const char *exe = path_exe_dir(), *tail = "/lib/gpu-harness";
    size_t n = strlen(exe), t = strlen(tail);
    if (n < t || strcmp(exe + n - t, tail))
        return 0;
    char guess[PATH_MAX + 32];
    snprintf(guess, sizeof guess, "%.*s/share/gpu-harness", (int)(n - t), exe);
    struct stat st;
    if (stat(guess, &st) || !S_ISDIR(st.st_mode) || strlen(guess) >= len)
        return 0;
    snprintf(root, len, "%s", guess);
    return 1;
}

const char *path_root_dir(void)
{
    static char root[PATH_MAX];
    if (!root[0]) {
        const char *env = getenv("HB_ROOT");
        if (env && *env) {
            snprintf(root, sizeof root, "%s", env);
        } else if (path_installed_root(root, sizeof root)) {
            /* The backends look for shipped sources under $HB_ROOT (else their build folder's
             * parent, which an installed tree does not have): tell them, and re-run harnesses. */
            setenv("HB_ROOT", root, 0);
        } else {
            /* The binary lives in <root>/build (or any BUILD folder one level down). */
            snprintf(root, sizeof root, "%s/..", path_exe_dir());
            char *real = realpath(root, NULL);
            if (real) {
                snprintf(root, sizeof root, "%s", real);
                free(real);
            }
        }
    }
    return root;
}

char *path_join(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || !*dir)
        return xstrdup(rel);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = xcalloc(n, 1);
    snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

char *path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    char *d = xcalloc((size_t)(slash - path) + 1, 1);
    memcpy(d, path, (size_t)(slash - path));
    return d;
}

int parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int str_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return cap + 1;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], sub = diag + (a[i - 1] != b[j - 1]);
            int del = up + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            diag = up;
            if (row[j] < best)
                best = row[j];
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb] > cap ? cap + 1 : row[lb];
}

const char *str_closest(const char *s, const char *const *names, int n)
{
    int cap = (int)strlen(s) / 3;
    cap = cap < 1 ? 1 : cap > 3 ? 3 : cap;
    const char *best = NULL;
    for (int i = 0; i < n; i++) {
        int d = str_distance(s, names[i], cap);
        if (d <= cap)
            best = names[i], cap = d - 1;
        if (cap < 0)
            break;
    }
    return best;
}

char *str_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

uint64_t hb_fnv1a_from(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

FILE *out_open(const char *path)
{
    if (strcmp(path, "-"))
        return fopen(path, "w");
    static int report_fd = -1;
    if (report_fd < 0) {
        fflush(stdout);
        if ((report_fd = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            return NULL;
    }
    return fdopen(dup(report_fd), "w");
}
uint64_t hb_fnv1a(const void *p, size_t n) { return hb_fnv1a_from(1469598103934665603ull, p, n); }
