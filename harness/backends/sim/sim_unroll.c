/* SPDX-License-Identifier: MIT */
/* sim_unroll.c: CUDA's and HIP's `#pragma unroll [N]` as GCC's `#pragma GCC unroll N`, in a
 * kernel's preprocessed source. g++ ignores the CUDA spelling, so a loop over a register
 * array (a thread's 8 x 8 accumulators) stayed rolled, the array stayed in memory and every
 * access to it went through the emulator's access check: unrolled as nvcc unrolls it, the
 * array lives in registers (the shipped sgemm_optimized ran 3x faster). Unrolling changes
 * no result. The last step of sim_rewrite.c, for run-time builds and, through sim-rewrite,
 * backend.mk's builds of the shipped kernels. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_unroll.h"

/* What an unroll pragma without a count (or with one g++ cannot read after preprocessing,
 * such as a macro's name) asks of g++: nvcc unrolls such loops fully when their trip count
 * is known; 64 covers a kernel's register arrays without unbounded code growth. */
#define SIM_UNROLL_DEFAULT 64
#define SIM_UNROLL_MAX 65534 /* g++'s limit */

/* The rewritten line for `line` if it is an unroll pragma (1), else 0. */
static int sim_unroll_line(const char *line, char *out, size_t len)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '#')
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "pragma", 6) || (p[6] != ' ' && p[6] != '\t'))
        return 0;
    for (p += 6; *p == ' ' || *p == '\t';)
        p++;
    if (strncmp(p, "unroll", 6) || (p[6] && p[6] != '(' && !isspace((unsigned char)p[6])))
        return 0;
    char *end;
    long n = strtol(p + 6, &end, 10);
    int counted = end != p + 6 && n >= 0;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || !counted)
        n = SIM_UNROLL_DEFAULT;
    snprintf(out, len, "#pragma GCC unroll %ld\n", n > SIM_UNROLL_MAX ? SIM_UNROLL_MAX : n);
    return 1;
}

int sim_unroll_rewrite(FILE *in, FILE *out)
{
    char *line = NULL, fixed[64];
    size_t cap = 0;
    int bad = 0;
    while (getline(&line, &cap, in) >= 0)
        bad |= fputs(sim_unroll_line(line, fixed, sizeof fixed) ? fixed : line, out) < 0;
    free(line);
    return bad || ferror(in) ? -1 : 0;
}
