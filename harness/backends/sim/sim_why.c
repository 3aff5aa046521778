/* SPDX-License-Identifier: MIT */
/* sim_why.c: turns a failed emulator build into a message that names what the source uses
 * and the emulator does not model (inline assembly, textures, a runtime function it does not
 * declare, a missing header...), read from the compiler's log by a table of patterns, with the
 * first error line and the log's path kept for the details. It words the message and says
 * whether a feature was named; sim_build.c decides the status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "sim_build.h"

long long sim_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* A folder whose file system has less than a compile's temporaries left: 1 MiB, a few pages of
 * assembly. A build fails there for want of room, whatever its log says about it. */
#define SIM_ROOM_BYTES (1 << 20)

static int sim_full(const char *dir)
{
    struct statvfs st;
    return statvfs(dir, &st) == 0 && ((double)st.f_bavail * (double)st.f_frsize < SIM_ROOM_BYTES || !st.f_favail);
}

int sim_no_space(const char *log, const char *first, char *out, size_t len)
{
    char text[65536] = "", cache[4096];
    FILE *in = fopen(log, "r");
    if (in) {
        text[fread(text, 1, sizeof text - 1, in)] = '\0';
        fclose(in);
    }
    int quota = strstr(text, "Disk quota exceeded") || strstr(first, "Disk quota exceeded");
    int said = quota || strstr(text, "No space left on device") || strstr(first, "No space left on device");
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *slash = strrchr(log, '/');
    snprintf(cache, sizeof cache, "%.*s", slash ? (int)(slash - log) : 1, slash ? log : ".");
    const char *full = sim_full(tmp) ? tmp : sim_full(cache) ? cache : NULL;
    if (!said && (text[0] || !full))
        return 0;
    char where[4200] = " (TMPDIR or the cache)";
    if (full)
        snprintf(where, sizeof where, " in %s (%s)", full, full == tmp ? "TMPDIR" : "the cache");
    snprintf(out, len, "%s%s: %.400s (log: %s)", quota ? "disk quota exceeded" : "no space left on device", where,
             first, log);
    return 1;
}

/* A log line that shows the feature, and how to name it. First match in the log wins;
 * within a line, the first pattern of the table. `source`: a mistake in the source or the
 * manifest (an ERROR) rather than something the emulator does not model (a SKIP). */
static const struct {
    const char *needle, *feature;
    int source;
} sim_features[] = {
    {"static assertion failed: sim: ", NULL, 0}, /* the prelude's own message names it */
    {"__sim_launch_not_rewritten",
     "a kernel launch (<<<...>>>) in a form the emulator does not rewrite (kernel<<<config>>>(arguments))", 0},
    {"Assembler messages", "inline assembly (asm: PTX or GCN instructions)", 0},
    {"__tsan_atomic", "C++ atomics (std::atomic, __atomic builtins) in device code: use atomicAdd and friends", 0},
    {"cuda_bf16", "bfloat16 (cuda_bf16.h)", 0},
    {"__nv_bfloat16", "bfloat16 (cuda_bf16.h)", 0},
    {"wmma", "tensor-core matrix operations (mma.h, wmma)", 0},
    {"tex1D", "textures", 0},
    {"tex2D", "textures", 0},
    {"tex3D", "textures", 0},
    {"cudaTextureObject_t", "textures", 0},
    {"hipTextureObject_t", "textures", 0},
    {"surf2D", "surfaces", 0},
    {"this_grid", "grid-wide cooperative groups (this_grid, grid.sync)", 0},
    {"cooperative_groups",
     "this part of cooperative groups (the emulator has this_thread_block, block_tile_memory, "
     "tiled_partition up to the block, sync, shfl*, ballot, any, all, thread_rank, "
     "meta_group_rank and _size, reduce)",
     0},
    {"sim_wrap",
     "an entry that does not name one kernel function (it must not be overloaded; a template takes "
     "its arguments)",
     1},
};

/* A host API the emulator's runtime headers (sim_host.h) do not declare, named from the first
 * quoted word of a line such as "'cudaGraphLaunch' was not declared in this scope", or a
 * device property they lack ("'struct cudaDeviceProp' has no member named 'uuid'"). */
static int sim_host_api(const char *line, size_t n, char *out, size_t len)
{
    static const struct {
        const char *prefix, *api;
    } apis[] = {
        {"cublas", "the cuBLAS API"},  {"cuda", "the CUDA runtime API"}, {"hip", "the HIP runtime API"},
        {"cu", "the CUDA driver API"}, {"CU", "the CUDA driver API"},
    };
    const char *q = memchr(line, '\'', n), *end = q ? memchr(q + 1, '\'', n - (size_t)(q + 1 - line)) : NULL;
    if (!end)
        return 0;
    const char *word = q + 1;
    size_t wn = (size_t)(end - word);
    const char *member = memmem(line, n, "has no member named '", 21);
    if (member && (memmem(word, wn, "DeviceProp", 10))) {
        const char *m = member + 21, *mend = memchr(m, '\'', n - (size_t)(m - line));
        snprintf(out, len, "uses the device property %.*s, which the emulator's %.*s does not have",
                 mend ? (int)(mend - m) : 0, m, (int)wn, word);
        return 1;
    }
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++) {
        size_t pn = strlen(apis[i].prefix);
        if (wn > pn && !strncmp(word, apis[i].prefix, pn) && (pn > 2 || (word[2] >= 'A' && word[2] <= 'Z'))) {
            snprintf(out, len, "uses %.*s (%s, host code), which the emulator does not declare", (int)wn, word,
                     apis[i].api);
            return 1;
        }
    }
    return 0;
}

/* The feature named by one log line, into out: 1 not modelled, 2 the source's mistake, 0 none. */
static int sim_feature(const char *line, size_t n, char *out, size_t len)
{
    for (size_t i = 0; i < sizeof sim_features / sizeof sim_features[0]; i++) {
        const char *at = memmem(line, n, sim_features[i].needle, strlen(sim_features[i].needle));
        if (!at)
            continue;
        if (!sim_features[i].feature) {
            const char *msg = at + strlen("static assertion failed: ");
            snprintf(out, len, "%.*s", (int)(n - (size_t)(msg - line)), msg);
        } else if (sim_features[i].source) {
            snprintf(out, len, "has %s", sim_features[i].feature);
        } else {
            snprintf(out, len, "uses %s, which the emulator does not model", sim_features[i].feature);
        }
        return sim_features[i].source ? 2 : 1;
    }
    if (sim_host_api(line, n, out, len))
        return 1;
    /* "fatal error: foo.h: No such file or directory" */
    const char *fatal = memmem(line, n, "fatal error: ", 13);
    const char *missing = memmem(line, n, ": No such file or directory", 27);
    if (fatal && missing && missing > fatal + 13) {
        /* gcc shows the directive on the next line: a "quoted" header is the source's own. */
        const char *next = line[n] == '\n' ? line + n + 1 : line + n, *nl = strchr(next, '\n');
        int own = memmem(next, nl ? (size_t)(nl - next) : strlen(next), "include \"", 9) != NULL;
        int hn = (int)(missing - fatal - 13);
        if (own)
            snprintf(out, len, "includes \"%.*s\", which is not found (includes = DIR in the manifest adds folders)",
                     hn, fatal + 13);
        else
            snprintf(out, len, "includes <%.*s>, which the emulator does not provide", hn, fatal + 13);
        return own ? 2 : 1;
    }
    /* "'__foo' was not declared in this scope": a built-in the prelude lacks */
    const char *undecl = memmem(line, n, "' was not declared", 18);
    const char *q = undecl ? undecl : NULL;
    while (q && q > line && q[-1] != '\'')
        q--;
    if (q && q > line && q[0] == '_' && q[1] == '_') {
        snprintf(out, len, "uses the built-in %.*s, which the emulator does not model", (int)(undecl - q), q);
        return 1;
    }
    return 0;
}

/* Whether a log line is a diagnostic (an error, the linker's undefined reference, gas's
 * header), not the source excerpt under it or an "In file included from" line, where any word
 * of the user's code or a header's name would match a pattern. */
static int sim_diagnostic(const char *line, size_t n)
{
    if (memmem(line, n, "warning:", 8))
        return 0; /* warnings never name the failure (users' builds keep them) */
    for (size_t i = 0; i + 5 <= n; i++)
        if (!strncasecmp(line + i, "error", 5))
            return 1;
    return memmem(line, n, "undefined reference", 19) || memmem(line, n, "Assembler messages", 18);
}

/* gcc quotes names with U+2018 and U+2019 in a UTF-8 locale: made ASCII, as the patterns are. */
static void sim_ascii_quotes(char *text)
{
    char *to = text;
    for (const char *p = text; *p;) {
        int quote = p[0] == '\xe2' && p[1] == '\x80' && (p[2] == '\x98' || p[2] == '\x99');
        *to++ = quote ? '\'' : *p;
        p += quote ? 3 : 1;
    }
    *to = '\0';
}

int sim_why(const struct sim_flavour *f, const char *log, const char *first, char *out, size_t len)
{
    char text[65536], feature[400] = "";
    size_t got = 0;
    int kind = 0;
    FILE *in = fopen(log, "r");
    if (in) {
        got = fread(text, 1, sizeof text - 1, in);
        fclose(in);
    }
    text[got] = '\0';
    sim_ascii_quotes(text);
    for (const char *line = text; *line && !kind;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (sim_diagnostic(line, n))
            kind = sim_feature(line, n, feature, sizeof feature);
        line += n + (end != NULL);
    }
    if (kind)
        snprintf(out, len, "%s %s (first error: %.400s; log: %s)", f->s->name, feature, first, log);
    else
        snprintf(out, len, "does not build for the emulator: %.400s (log: %s)", first, log);
    return kind == 1;
}
