/* sim_why.c: turns a failed emulator build into a message that names what the source uses
 * and the emulator does not model (inline assembly, textures, host code, a missing header...),
 * read from the compiler's log by a table of patterns, with the first error line and the
 * log's path kept for the details. It only words the message; sim_build.c decides the status. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_build.h"

long long sim_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* A log line that shows the feature, and how to name it. First match in the log wins;
 * within a line, the first pattern of the table. */
static const struct {
    const char *needle, *feature;
} sim_features[] = {
    {"static assertion failed: sim: ", NULL}, /* the prelude's own message names it */
    {"<<<", "kernel launches (<<<...>>>) in host code: give the emulator a file of device code"},
    {"Assembler messages", "inline assembly (asm: PTX or GCN instructions)"},
    {"__tsan_atomic", "C++ atomics (std::atomic, __atomic builtins) in device code: use atomicAdd and friends"},
    {"cuda_bf16", "bfloat16 (cuda_bf16.h)"},
    {"__nv_bfloat16", "bfloat16 (cuda_bf16.h)"},
    {"wmma", "tensor-core matrix operations (mma.h, wmma)"},
    {"tex1D", "textures"},
    {"tex2D", "textures"},
    {"tex3D", "textures"},
    {"cudaTextureObject_t", "textures"},
    {"hipTextureObject_t", "textures"},
    {"surf2D", "surfaces"},
    {"this_grid", "grid-wide cooperative groups (this_grid, grid.sync)"},
    {"cooperative_groups", "this part of cooperative groups (the emulator has this_thread_block, "
                           "tiled_partition, sync, shfl*, ballot, any, all, thread_rank, reduce)"},
    {"'cublas", "the cuBLAS API (host code)"},
    {"'cuda", "the CUDA runtime API (host code)"},
    {"'hip", "the HIP runtime API (host code)"},
    {"sim_wrap", "an entry that names one kernel function (not overloaded, a template with its "
                 "arguments given)"},
};

/* The feature named by one log line, into out; 0 when none. */
static int sim_feature(const char *line, size_t n, char *out, size_t len)
{
    for (size_t i = 0; i < sizeof sim_features / sizeof sim_features[0]; i++) {
        const char *at = memmem(line, n, sim_features[i].needle, strlen(sim_features[i].needle));
        if (!at)
            continue;
        if (!sim_features[i].feature) {
            const char *msg = at + strlen("static assertion failed: ");
            snprintf(out, len, "%.*s", (int)(n - (size_t)(msg - line)), msg);
        } else {
            snprintf(out, len, "uses %s, which the emulator does not model", sim_features[i].feature);
        }
        return 1;
    }
    /* "fatal error: foo.h: No such file or directory" */
    const char *fatal = memmem(line, n, "fatal error: ", 13);
    const char *missing = memmem(line, n, ": No such file or directory", 27);
    if (fatal && missing && missing > fatal + 13) {
        snprintf(out, len, "includes %.*s, which the emulator does not provide", (int)(missing - fatal - 13),
                 fatal + 13);
        return 1;
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

void sim_why(const struct sim_flavour *f, const char *log, const char *first, char *out, size_t len)
{
    char text[65536], feature[400] = "";
    size_t got = 0;
    FILE *in = fopen(log, "r");
    if (in) {
        got = fread(text, 1, sizeof text - 1, in);
        fclose(in);
    }
    text[got] = '\0';
    for (const char *line = text; *line && !feature[0];) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        /* Warnings never name the failure (users' builds keep them). */
        if (!memmem(line, n, "warning:", 8))
            sim_feature(line, n, feature, sizeof feature);
        line += n + (end != NULL);
    }
    if (feature[0])
        snprintf(out, len, "%s %s (first error: %.400s; log: %s)", f->s->name, feature, first, log);
    else
        snprintf(out, len, "does not build for the emulator: %.400s (log: %s)", first, log);
}
