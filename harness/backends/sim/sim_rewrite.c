/* SPDX-License-Identifier: MIT */
/* sim_rewrite.c: what nvcc and hipcc accept in a whole file and g++ does not, rewritten in its
 * preprocessed source token by token (string and character literals, comments and system
 * headers left alone), then the unroll pragmas (sim_unroll.c). Launches `k<<<cfg>>>(args)`
 * become a call compiled and never made (sim_host.h); the user's main() is renamed and stops if
 * called, so a kernel object defines no main; CUDA's __noinline__ qualifier becomes GCC's
 * attribute outside attributes, where libstdc++ writes __noinline__ itself; and a member named
 * like a built-in (`prop.warpSize`) gets its name back from the prelude's macro. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_rewrite.h"
#include "sim_unroll.h"

struct sim_out {
    char *p;
    size_t n, cap;
    int failed;
};

static void out_put(struct sim_out *o, const char *s, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->n + n + 1 > o->cap) {
        size_t cap = (o->n + n + 1) * 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->p = p, o->cap = cap;
    }
    memcpy(o->p + o->n, s, n);
    o->n += n;
    o->p[o->n] = '\0';
}
static void out_str(struct sim_out *o, const char *s) { out_put(o, s, strlen(s)); }

/* The source being rewritten, and whether the current line came from a system header. */
struct sim_src {
    const char *s;
    size_t n;
    int system;
};

static int sim_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}
static int sim_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* The end of the literal or comment starting at i (a quote, a raw string's R", or a comment's
 * slash), or i when there is none there. A raw string ends at )delim". */
static size_t sim_literal_end(const struct sim_src *src, size_t i)
{
    const char *s = src->s;
    size_t n = src->n;
    if (s[i] == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) {
        const char *end = s[i + 1] == '/' ? memchr(s + i, '\n', n - i) : strstr(s + i + 2, "*/");
        return end ? (size_t)(end - s) + (s[i + 1] == '*' ? 2 : 0) : n;
    }
    if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"') {
        const char *open = memchr(s + i + 2, '(', n - i - 2);
        if (!open || open - (s + i + 2) > 16)
            return i;
        char close[20];
        snprintf(close, sizeof close, ")%.*s\"", (int)(open - (s + i + 2)), s + i + 2);
        const char *end = strstr(open, close);
        return end ? (size_t)(end - s) + strlen(close) : n;
    }
    if (s[i] != '"' && s[i] != '\'')
        return i;
    size_t j = i + 1;
    while (j < n && s[j] != s[i] && s[j] != '\n')
        j += s[j] == '\\' && j + 1 < n ? 2 : 1;
    return j < n ? j + 1 : n;
}

/* The end of the group opened at i ('(', '[' or '{'), nested groups and literals inside
 * skipped; n when it does not close. */
static size_t sim_group_end(const struct sim_src *src, size_t i)
{
    int depth = 0;
    for (size_t j = i; j < src->n; j++) {
        size_t lit = sim_literal_end(src, j);
        if (lit != j) {
            j = lit - 1;
            continue;
        }
        char c = src->s[j];
        depth += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
        if (depth == 0)
            return j + 1;
    }
    return src->n;
}

/* The end of a launch's configuration starting at i: the `>>>` outside any group; n if none. */
static size_t sim_config_end(const struct sim_src *src, size_t i)
{
    for (size_t j = i; j + 2 < src->n; j++) {
        size_t lit = sim_literal_end(src, j);
        if (lit != j) {
            j = lit - 1;
        } else if (src->s[j] && strchr("([{", src->s[j])) {
            j = sim_group_end(src, j) - 1;
        } else if (src->s[j] && strchr(")]};", src->s[j])) {
            return src->n;
        } else if (!memcmp(src->s + j, ">>>", 3)) {
            return j;
        }
    }
    return src->n;
}

/* Backward from end (exclusive) over one balanced group closed at end - 1 (')', ']' or a
 * template's '>'): the group's start, or SIZE_MAX when it does not open. Inside parentheses
 * and brackets '<' and '>' are comparisons, not template brackets. */
static size_t sim_group_start(const char *o, size_t end)
{
    char close = o[end - 1], open = close == ')' ? '(' : close == ']' ? '[' : '<';
    for (size_t j = end - 1; j > 0;) {
        char c = o[--j];
        if (c == open)
            return j;
        if (c == ')' || c == ']' || (c == '>' && open == '<' && (j == 0 || o[j - 1] != '-'))) {
            j = sim_group_start(o, j + 1);
            if (j == SIZE_MAX)
                return SIZE_MAX;
        }
    }
    return SIZE_MAX;
}

/* Words that end a kernel expression read backward: `return (k)<<<...` launches (k), and
 * `if (n) k<<<...` launches k, not `if (n) k`. */
static int sim_keyword(const char *w, size_t n)
{
    static const char *const words[] = {"return", "else",  "do",  "case",   "throw",
                                        "if",     "while", "for", "switch", "co_return"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && !memcmp(words[i], w, n))
            return 1;
    return 0;
}

/* Whether the word ending at end (spaces before it skipped) is one of sim_keyword's. */
static int sim_keyword_before(const char *p, size_t end)
{
    while (end > 0 && sim_space(p[end - 1]))
        end--;
    size_t w = end;
    while (w > 0 && sim_ident_char(p[w - 1]))
        w--;
    return w < end && sim_keyword(p + w, end - w);
}

/* Where the kernel expression before a launch's `<<<` starts in what was written so far: a
 * postfix expression (`k`, `ns::k<T, 4>`, `::k`, `(*fp)`, `table[i]`, `obj.k`, `get()`), read
 * backward; o->n when there is none. */
static size_t sim_kernel_start(const struct sim_out *o)
{
    const char *p = o->p;
    size_t j = o->n, start = o->n;
    for (;;) {
        while (j > 0 && sim_space(p[j - 1]))
            j--;
        char c = j > 0 ? p[j - 1] : '\0';
        if (c == ')' || c == ']' || (c == '>' && (j < 2 || p[j - 2] != '-'))) {
            size_t g = sim_group_start(p, j);
            if (g == SIZE_MAX || (c == ')' && sim_keyword_before(p, g)))
                return start;
            j = start = g;
            continue;
        }
        size_t w = j;
        while (w > 0 && sim_ident_char(p[w - 1]))
            w--;
        if (w == j || sim_keyword(p + w, j - w))
            return start;
        start = j = w;
        while (j > 0 && sim_space(p[j - 1]))
            j--;
        if (j >= 2 && !memcmp(p + j - 2, "::", 2)) {
            /* `ns::k` goes on to ns; `::k` at global scope (nothing named before) ends there. */
            start = j -= 2;
            while (j > 0 && sim_space(p[j - 1]))
                j--;
            if (j == 0 || !(sim_ident_char(p[j - 1]) || p[j - 1] == '>'))
                return start;
        } else if (j >= 2 && !memcmp(p + j - 2, "->", 2)) {
            j -= 2;
        } else if (j >= 1 && p[j - 1] == '.') {
            j -= 1;
        } else {
            return start;
        }
    }
}

static void sim_span(struct sim_src *src, size_t from, size_t to, struct sim_out *o);

/* A launch at i (`<<<`): `K<<<cfg>>>(args)` written as `(::__sim_host_launch(cfg) ? (void)0 :
 * (void)K(args))`, its parts rewritten in turn. Returns the position after it, or i when what
 * is there is not a launch it can read. Newlines are kept, so are line numbers. */
static size_t sim_launch(struct sim_src *src, size_t i, struct sim_out *o)
{
    size_t cfg_end = sim_config_end(src, i + 3), args = cfg_end + 3;
    while (args < src->n && sim_space(src->s[args]))
        args++;
    size_t k = sim_kernel_start(o);
    if (cfg_end >= src->n || args >= src->n || src->s[args] != '(' || k == o->n)
        return i;
    size_t args_end = sim_group_end(src, args);
    char *kernel = strndup(o->p + k, o->n - k);
    if (!kernel) {
        o->failed = 1;
        return src->n;
    }
    o->n = k;
    out_str(o, "(::__sim_host_launch(");
    sim_span(src, i + 3, cfg_end, o);
    out_str(o, ") ? (void)0 : (void)");
    out_str(o, kernel);
    free(kernel);
    sim_span(src, cfg_end + 3, args_end, o);
    out_str(o, ")");
    return args_end;
}

/* The user's main at i..j, renamed; a definition's body starts by stopping the process, which
 * also spares an int function without a return statement its warning. */
static size_t sim_main(struct sim_src *src, size_t j, struct sim_out *o)
{
    out_str(o, "__sim_host_main");
    size_t k = j;
    while (k < src->n && sim_space(src->s[k]))
        k++;
    if (k >= src->n || src->s[k] != '(')
        return j;
    k = sim_group_end(src, k);
    while (k < src->n && sim_space(src->s[k]))
        k++;
    if (k >= src->n || src->s[k] != '{')
        return j;
    out_put(o, src->s + j, k + 1 - j);
    out_str(o, " ::__sim_host_unrun(\"main()\");");
    return k + 1;
}

/* After a member access (`.` or `->`) at i..j: a member named like a built-in variable,
 * which the prelude's macro has expanded, gets its name back. */
static size_t sim_member(const struct sim_src *src, size_t j, struct sim_out *o)
{
    static const struct {
        const char *name, *expansion; /* as sim_prelude.h defines them */
    } builtins[] = {
        {"warpSize", "(sim_self()->blk.width)"},     {"threadIdx", "(sim_self()->tid)"},
        {"blockIdx", "(sim_self()->blk.block_idx)"}, {"blockDim", "(sim_self()->blk.block_dim)"},
        {"gridDim", "(sim_self()->blk.grid_dim)"},
    };
    size_t k = j;
    while (k < src->n && sim_space(src->s[k]))
        k++;
    for (size_t b = 0; b < sizeof builtins / sizeof builtins[0]; b++) {
        size_t len = strlen(builtins[b].expansion);
        if (k + len <= src->n && !memcmp(src->s + k, builtins[b].expansion, len)) {
            out_put(o, src->s + j, k - j);
            out_str(o, builtins[b].name);
            return k + len;
        }
    }
    return j;
}

/* A directive line at i (`#` first on its line): copied; a line marker (`# 12 "f.h" 1 3`) says
 * whether what follows comes from a system header (flag 3). */
static size_t sim_directive(struct sim_src *src, size_t i, struct sim_out *o)
{
    const char *nl = memchr(src->s + i, '\n', src->n - i);
    size_t end = nl ? (size_t)(nl - src->s) + 1 : src->n;
    const char *p = src->s + i + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p >= '0' && *p <= '9') {
        const char *quote = memchr(p, '"', end - (size_t)(p - src->s));
        size_t last = quote ? sim_literal_end(src, (size_t)(quote - src->s)) : end;
        src->system = memmem(src->s + last, end - last, " 3", 2) != NULL;
    }
    out_put(o, src->s + i, end - i);
    return end;
}

/* An identifier at i..j: the user's main, CUDA's __noinline__ outside an attribute, an
 * attribute copied whole (it may name __noinline__ itself), or the word as it is. */
static size_t sim_word(struct sim_src *src, size_t i, size_t j, struct sim_out *o)
{
    size_t n = j - i;
    const char *w = src->s + i;
    if (n == 4 && !memcmp(w, "main", 4) && !src->system)
        return sim_main(src, j, o);
    if (n == 12 && !memcmp(w, "__noinline__", 12)) {
        out_str(o, "__attribute__((noinline))");
        return j;
    }
    out_put(o, w, n);
    if ((n == 13 && !memcmp(w, "__attribute__", 13)) || (n == 11 && !memcmp(w, "__attribute", 11))) {
        size_t k = j;
        while (k < src->n && sim_space(src->s[k]))
            k++;
        if (k < src->n && src->s[k] == '(') {
            size_t end = sim_group_end(src, k);
            out_put(o, src->s + j, end - j);
            return end;
        }
    }
    return j;
}

/* Whether s[j] continues a number (a pp-number: digit separators, exponents' signs). */
static int sim_number_char(const char *s, size_t j)
{
    return s[j] == '.' || s[j] == '\'' || ((s[j] == '+' || s[j] == '-') && strchr("eEpP", s[j - 1]));
}

/* The loop over [from, to): literals, directives, words, numbers, attributes, launches. */
static void sim_span(struct sim_src *src, size_t from, size_t to, struct sim_out *o)
{
    const char *s = src->s;
    int line_start = from == 0 || s[from - 1] == '\n';
    for (size_t i = from; i < to && !o->failed;) {
        size_t j = sim_literal_end(src, i);
        char c = s[i];
        if (j == i && c == '#' && line_start) {
            j = sim_directive(src, i, o);
        } else if (j == i && (sim_ident_char(c) || (c == '.' && i + 1 < to && s[i + 1] >= '0' && s[i + 1] <= '9'))) {
            int number = (c >= '0' && c <= '9') || c == '.';
            while (j < to && (sim_ident_char(s[j]) || (number && sim_number_char(s, j))))
                j++;
            if (number) {
                out_put(o, s + i, j - i);
            } else if (s[j - 1] == 'R' && j < to && s[j] == '"') { /* a raw string's prefix: u8R, LR... */
                j = sim_literal_end(src, j - 1);
                out_put(o, s + i, j - i);
            } else {
                j = sim_word(src, i, j, o);
            }
        } else if (j == i && c == '[' && i + 1 < to && s[i + 1] == '[') {
            j = sim_group_end(src, i);
            out_put(o, s + i, j - i);
        } else if (j == i && i + 2 < to && !memcmp(s + i, "<<<", 3)) {
            /* A form not read as a launch is marked, so the compiler's error names it (sim_why.c). */
            if ((j = sim_launch(src, i, o)) == i) {
                out_str(o, " __sim_launch_not_rewritten ");
                out_put(o, s + i, 3);
                j = i + 3;
            }
        } else if (j == i && (c == '.' || (c == '-' && i + 1 < to && s[i + 1] == '>'))) {
            j = i + (c == '.' ? 1 : 2);
            out_put(o, s + i, j - i);
            j = s[i + 1] == '.' ? j : sim_member(src, j, o);
        } else {
            j = j == i ? i + 1 : j;
            out_put(o, s + i, j - i);
        }
        for (size_t k = i; k < j; k++)
            line_start = s[k] == '\n' ? 1 : line_start && sim_space(s[k]);
        i = j;
    }
}

int sim_rewrite(FILE *in, FILE *out, int rolled)
{
    struct sim_out src = {0}, o = {0};
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        out_put(&src, buf, got);
    int rc = ferror(in) || src.failed ? -1 : 0;
    if (rc == 0 && src.n > 0) {
        struct sim_src text = {src.p, src.n, 0};
        sim_span(&text, 0, src.n, &o);
        rc = o.failed ? -1 : 0;
    }
    FILE *rewritten = rc == 0 && o.n > 0 ? fmemopen(o.p, o.n, "r") : NULL;
    if (rewritten) {
        rc = sim_unroll_rewrite(rewritten, out, rolled);
        fclose(rewritten);
    } else if (rc == 0 && o.n > 0) {
        rc = -1;
    }
    free(src.p);
    free(o.p);
    return rc;
}
