/* SPDX-License-Identifier: MIT */
/* sim_unroll.c: CUDA's and HIP's `#pragma unroll [N]` as GCC's `#pragma GCC unroll N`, in a
 * kernel's preprocessed source. g++ ignores the CUDA spelling, so a loop over a register
 * array (a thread's 8 x 8 accumulators) stayed rolled, the array stayed in memory and every
 * access to it went through the emulator's access check: unrolled as nvcc unrolls it, the
 * array lives in registers (the shipped sgemm_optimized ran 3x faster). Unrolling changes
 * no result. The last step of sim_rewrite.c, for run-time builds and make's builds of the
 * shipped kernels alike (sim_steps.c). */
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

/* The end of the balanced run that opens with s[i] (open) and closes with close, or n. */
static size_t sim_unroll_match(const char *s, size_t n, size_t i, char open, char close)
{
    int depth = 0;
    for (; i < n; i++)
        if ((depth += (s[i] == open) - (s[i] == close)) == 0)
            return i + 1;
    return n;
}

/* Whether the loop after an unroll pragma, at s[i], is one the unchecked copy leaves to g++: a
 * `for` whose body holds no loop and calls nothing but fmaf (an accumulator tile's row, which
 * the vectorizer takes whole when it is still a loop). Any other body keeps the pragma: it
 * unrolls register arrays that other calls take apart, as nvcc's does. */
static int sim_unroll_leaf(const char *s, size_t n, size_t i)
{
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (n - i < 4 || strncmp(s + i, "for", 3) || (s[i + 3] != '(' && !isspace((unsigned char)s[i + 3])))
        return 0;
    for (i += 3; i < n && s[i] != '('; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    i = sim_unroll_match(s, n, i, '(', ')');
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t end = i < n && s[i] == '{' ? sim_unroll_match(s, n, i, '{', '}') : i;
    if (end == i)
        while (end < n && s[end] != ';' && s[end] != '{' && s[end] != '}')
            end++;
    for (size_t k = i; k < end;) {
        if (isdigit((unsigned char)s[k])) { /* a number, 1e5f or 0x1f: no name in it */
            while (k < end && (isalnum((unsigned char)s[k]) || s[k] == '.' || s[k] == '_'))
                k++;
            continue;
        }
        if (!isalpha((unsigned char)s[k]) && s[k] != '_') {
            k++;
            continue;
        }
        size_t w = k;
        while (k < end && (isalnum((unsigned char)s[k]) || s[k] == '_'))
            k++;
        size_t len = k - w, after = k;
        while (after < end && isspace((unsigned char)s[after]))
            after++;
        int loop = (len == 3 && !strncmp(s + w, "for", 3)) || (len == 5 && !strncmp(s + w, "while", 5)) ||
                   (len == 2 && !strncmp(s + w, "do", 2));
        int fma = (len == 4 && !strncmp(s + w, "fmaf", 4)) || (len == 9 && !strncmp(s + w, "__fmaf_rn", 9));
        if (loop || (after < end && s[after] == '(' && !fma))
            return 0;
    }
    return 1;
}

int sim_unroll_rewrite(FILE *in, FILE *out, int rolled)
{
    char *text = NULL, fixed[64];
    size_t len = 0;
    FILE *all = open_memstream(&text, &len);
    char buf[65536];
    size_t got;
    int bad = !all;
    while (all && (got = fread(buf, 1, sizeof buf, in)) > 0)
        bad |= fwrite(buf, 1, got, all) != got;
    if (all)
        bad |= fclose(all) != 0;
    for (size_t at = 0; !bad && at < len;) {
        const char *eol = memchr(text + at, '\n', len - at);
        size_t next = eol ? (size_t)(eol - text) + 1 : len;
        /* A line is a pragma only whole: copy it out to read it. */
        char line[256];
        int short_line = next - at < sizeof line;
        if (short_line)
            snprintf(line, sizeof line, "%.*s", (int)(next - at), text + at);
        int pragma = short_line && sim_unroll_line(line, fixed, sizeof fixed);
        if (pragma && !(rolled && sim_unroll_leaf(text, len, next)))
            bad |= fputs(fixed, out) < 0;
        else
            bad |= fwrite(text + at, 1, next - at, out) != next - at;
        at = next;
    }
    free(text);
    return bad || ferror(in) ? -1 : 0;
}
