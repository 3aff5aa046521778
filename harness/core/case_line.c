/* SPDX-License-Identifier: MIT */
/* case_line.c: one case catalogue line (cases/README.md):
 *   <op> <name> key=value ...
 * A value may be a comma list; a line with lists expands to the cross product of them, named
 * by substituting {M} {N} {K} {n} {dist} (or any other size key) in the name. Which size keys
 * an op takes, and its defaults and limits, are its op_desc's; a custom line names its own
 * sizes (rows=4 cols=7). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

#define MAX_LIST 32
#define MAX_LINE 4096
/* The kernel ABI passes sizes as 32-bit ints and indexes with them. */
#define MAX_DIM 2147483647L
/* Cases one line may expand to, and a whole catalogue may hold: the largest shipped line
 * makes 64 and the nightly tier 235 in all. Each case is a 600-byte descriptor run on every
 * kernel and width (some 30 x 5 results per case here), so 10000 from one line is already a
 * run no one waits for; without a cap, six lists of 32 values (an 800-byte line) ask for
 * 1.07e9 descriptors, 640 GB, before anything is checked. */
#define CASE_MAX_PER_LINE 10000L
#define CASE_MAX_TOTAL 100000L

struct list {
    int n;
    long v[MAX_LIST];
    int given;
};

/* The size variables a case line may set, in the order a line's lists expand; which ones an
 * op takes is its op_desc's size_keys. */
static const struct case_var {
    const char *key;
    size_t at;
    long unset; /* its value when the line does not give it: -1 lets an op supply a default */
} case_vars[] = {
    {"M", offsetof(struct hb_case, M), 0},      {"N", offsetof(struct hb_case, N), 0},
    {"K", offsetof(struct hb_case, K), 0},      {"n", offsetof(struct hb_case, n), 0},
    {"lda", offsetof(struct hb_case, lda), -1}, {"ldb", offsetof(struct hb_case, ldb), -1},
    {"ldc", offsetof(struct hb_case, ldc), -1},
};
#define CASE_VARS ((int)(sizeof case_vars / sizeof case_vars[0]))

struct line_spec {
    enum hb_op op;
    char name[96];
    struct list sizes[CASE_VARS], dist;
    int n_named; /* custom: the sizes the line names, in its order */
    char named[CASE_MAX_SIZES][16];
    struct list named_sizes[CASE_MAX_SIZES];
    unsigned specials;
    int have_seed, have_special, have_note;
    unsigned scalars;
    float alpha, beta;
    uint64_t seed;
    char note[160];
};

/* Whether `key` is one of a space-separated word list. */
static int word_listed(const char *words, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = words; (p = strstr(p, key)); p += n)
        if ((p == words || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

static int case_var_index(const char *key)
{
    for (int i = 0; i < CASE_VARS; i++)
        if (!strcmp(case_vars[i].key, key))
            return i;
    return -1;
}

static long *case_var_slot(struct hb_case *c, int var) { return (long *)((char *)c + case_vars[var].at); }

static int parse_size_list(const char *val, struct list *l, const char *key, const char *where, struct hb_err *err)
{
    if (l->given) {
        err_set(err, "%s: %s given twice", where, key);
        return -1;
    }
    l->given = 1;
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v;
        if (parse_long(str_trim(tok), &v) || v < 0 || v > MAX_DIM) {
            err_set(err, "%s: %s=%s: expected whole numbers from 0 to %ld, comma separated", where, key, val, MAX_DIM);
            return -1;
        }
        if (l->n == MAX_LIST) {
            err_set(err, "%s: %s lists more than %d values", where, key, MAX_LIST);
            return -1;
        }
        l->v[l->n++] = v;
    }
    if (!l->n) {
        err_set(err, "%s: %s has no value", where, key);
        return -1;
    }
    return 0;
}

static int parse_dist_list(const char *val, struct list *l, const char *where, struct hb_err *err)
{
    if (l->given) {
        err_set(err, "%s: dist given twice", where);
        return -1;
    }
    l->given = 1;
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int d = 0; d < DIST_COUNT; d++)
            if (!strcmp(str_trim(tok), case_dist_name((enum case_dist)d)))
                found = d;
        if (found < 0) {
            err_set(err, "%s: unknown dist '%s' (exact, uniform, cancel, special, wideint)", where, tok);
            return -1;
        }
        if (l->n == MAX_LIST) {
            err_set(err, "%s: dist lists more than %d values", where, MAX_LIST);
            return -1;
        }
        l->v[l->n++] = found;
    }
    if (!l->n) {
        err_set(err, "%s: dist has no value", where);
        return -1;
    }
    return 0;
}

static int parse_specials(const char *val, unsigned *out, const char *where, struct hb_err *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {
        {"nan", SPECIAL_NAN}, {"inf", SPECIAL_INF}, {"negzero", SPECIAL_NEGZERO}, {"subnormal", SPECIAL_SUBNORMAL}};
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    *out = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcmp(str_trim(tok), names[i].name))
                bit = names[i].bit;
        if (!bit) {
            err_set(err, "%s: unknown special value '%s' (nan, inf, negzero, subnormal)", where, tok);
            return -1;
        }
        *out |= bit;
    }
    if (!*out) {
        err_set(err, "%s: special has no value", where);
        return -1;
    }
    return 0;
}

/* alpha= or beta= (sgemm): one finite float, for the kernels that declare that parameter. */
static int parse_scalar(struct line_spec *ls, const char *key, const char *val, const char *where, struct hb_err *err)
{
    unsigned bit = key[0] == 'a' ? CASE_ALPHA : CASE_BETA;
    char *end;
    errno = 0;
    float v = strtof(val, &end);
    if (!op_is_gemm(ls->op)) {
        err_set(err, "%s: %s= applies to sgemm cases only", where, key);
        return -1;
    }
    if (ls->scalars & bit) {
        err_set(err, "%s: %s given twice", where, key);
        return -1;
    }
    if (!*val || *end || errno || !isfinite(v)) {
        err_set(err, "%s: %s=%s: expected one finite number", where, key, val);
        return -1;
    }
    ls->scalars |= bit;
    *(bit == CASE_ALPHA ? &ls->alpha : &ls->beta) = v;
    return 0;
}

/* Splits the next token; a value may be double-quoted to hold spaces. */
static char *next_token(char **cursor, const char *where, struct hb_err *err, int *failed)
{
    char *p = *cursor;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return NULL;
    char *start = p, *out = p;
    int quoted = 0;
    for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
        if (*p == '"') {
            quoted = !quoted;
            continue;
        }
        *out++ = *p;
    }
    if (quoted) {
        err_set(err, "%s: unterminated quote", where);
        *failed = 1;
        return NULL;
    }
    if (*p)
        p++;
    *out = 0;
    *cursor = p;
    return start;
}

static int expand_name(const char *tmpl, const struct hb_case *c, char *out, size_t len)
{
    size_t used = 0;
    for (const char *p = tmpl; *p;) {
        char piece[64] = "", key[16] = "";
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        int var = -1, is_dist = 0, named = -1;
        if (close && close - p - 1 < (long)sizeof key) {
            snprintf(key, sizeof key, "%.*s", (int)(close - p - 1), p + 1);
            var = case_var_index(key);
            is_dist = !strcmp(key, "dist");
            for (int i = 0; i < c->n_sizes; i++)
                named = !strcmp(c->sizes[i].name, key) ? i : named;
        }
        if (named >= 0)
            snprintf(piece, sizeof piece, "%ld", c->sizes[named].value), p = close + 1;
        else if (var >= 0)
            snprintf(piece, sizeof piece, "%ld", *case_var_slot((struct hb_case *)c, var)), p = close + 1;
        else if (is_dist)
            snprintf(piece, sizeof piece, "%s", case_dist_name(c->dist)), p = close + 1;
        else
            piece[0] = *p++, piece[1] = 0;
        size_t n = strlen(piece);
        if (used + n >= len)
            return -1;
        memcpy(out + used, piece, n + 1);
        used += n;
    }
    return 0;
}

/* One case of a line, its sizes and distribution already set. */
static int emit_one(const struct line_spec *ls, struct hb_case *c, const char *file, int line, long total, int first,
                    struct case_set *set, struct hb_err *err)
{
    char where[300];
    snprintf(where, sizeof where, "%s:%d", file, line);
    c->op = ls->op;
    c->specials = ls->specials;
    c->scalars = ls->scalars, c->alpha = ls->alpha, c->beta = ls->beta;
    if (c->dist == DIST_SPECIAL && !ls->have_special) {
        err_set(err, "%s: dist=special needs special=nan,inf,negzero,subnormal (any of them)", where);
        return -1;
    }
    const struct op_desc *op = op_get(ls->op);
    if (op->complete_case && op->complete_case(c, where, err))
        return -1;
    for (int v = 0; v < CASE_VARS; v++)
        if (*case_var_slot(c, v) < 0)
            *case_var_slot(c, v) = 0;
    if (expand_name(ls->name, c, c->name, sizeof c->name)) {
        err_set(err, "%s: case name too long", where);
        return -1;
    }
    c->seed = ls->have_seed ? ls->seed : hb_fnv1a(c->name, strlen(c->name));
    snprintf(c->note, sizeof c->note, "%s", ls->note);
    snprintf(c->file, sizeof c->file, "%s", file);
    c->line = line;
    int at = case_set_find(set, c->name);
    if (at >= 0) {
        err_set(err, "%s: case name '%s' is already used at %s:%d%s", where, c->name, set->c[at].file, set->c[at].line,
                total > 1 && at >= first
                    ? " (put {M} {N} {K} {n} or {dist}, or another listed key in braces, in a name that lists values)"
                    : "");
        return -1;
    }
    case_set_push(set, c);
    return 0;
}

/* Expands a line's lists to their cross product: variables in case_vars order, a custom line's
 * sizes in its order, then dist. */
static int emit_cases(const struct line_spec *ls, const char *file, int line, struct case_set *set, struct hb_err *err)
{
    static const struct list uniform_only = {1, {DIST_UNIFORM}, 0};
    enum { FIXED = CASE_VARS, MAX_LISTS = CASE_VARS + CASE_MAX_SIZES + 1 };
    struct list unset[CASE_VARS];
    const struct list *lists[MAX_LISTS];
    int n_lists = FIXED + ls->n_named + 1;
    long total = 1;
    for (int v = 0; v < n_lists; v++) {
        if (v < FIXED)
            unset[v] = (struct list){1, {case_vars[v].unset}, 0};
        lists[v] = v == n_lists - 1     ? (ls->dist.given ? &ls->dist : &uniform_only)
                   : v >= FIXED         ? &ls->named_sizes[v - FIXED]
                   : ls->sizes[v].given ? &ls->sizes[v]
                                        : &unset[v];
        total *= lists[v]->n;
    }
    if (total > CASE_MAX_PER_LINE || set->n + total > CASE_MAX_TOTAL) {
        err_set(err, "%s:%d: %s %ld cases%s: at most %ld per line and %ld in a catalogue", file, line,
                total > CASE_MAX_PER_LINE ? "the line's lists expand to" : "the catalogue reaches",
                total > CASE_MAX_PER_LINE ? total : set->n + total,
                total > CASE_MAX_PER_LINE ? " (the product of its list lengths)" : "", CASE_MAX_PER_LINE,
                CASE_MAX_TOTAL);
        return -1;
    }
    int first = set->n, pick[MAX_LISTS] = {0};
    for (long done = 0; done < total; done++) {
        struct hb_case c;
        memset(&c, 0, sizeof c);
        for (int v = 0; v < FIXED; v++)
            *case_var_slot(&c, v) = lists[v]->v[pick[v]];
        c.n_sizes = ls->n_named;
        for (int i = 0; i < ls->n_named; i++) {
            snprintf(c.sizes[i].name, sizeof c.sizes[i].name, "%s", ls->named[i]);
            c.sizes[i].value = lists[FIXED + i]->v[pick[FIXED + i]];
        }
        c.dist = (enum case_dist)lists[n_lists - 1]->v[pick[n_lists - 1]];
        if (emit_one(ls, &c, file, line, total, first, set, err))
            return -1;
        /* Odometer: the last list turns fastest. */
        for (int v = n_lists - 1; v >= 0 && ++pick[v] == lists[v]->n; v--)
            pick[v] = 0;
    }
    return 0;
}

/* A custom line's size: any C name not taken by a case key (rows=4, cols=100,200). */
static int parse_named(struct line_spec *ls, const char *key, const char *val, const char *where, struct hb_err *err)
{
    int ok = (isalpha((unsigned char)key[0]) || key[0] == '_') && strlen(key) < sizeof ls->named[0];
    for (const char *p = key; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok) {
        err_set(err, "%s: '%s' is not a size name (a C name of at most %zu characters)", where, key,
                sizeof ls->named[0] - 1);
        return -1;
    }
    int at = 0;
    while (at < ls->n_named && strcmp(ls->named[at], key))
        at++;
    if (at == CASE_MAX_SIZES) {
        err_set(err, "%s: a custom case takes at most %d sizes", where, CASE_MAX_SIZES);
        return -1;
    }
    if (at == ls->n_named)
        snprintf(ls->named[ls->n_named++], sizeof ls->named[0], "%s", key);
    return parse_size_list(val, &ls->named_sizes[at], key, where, err);
}

/* One key=value of a line into ls. */
static int parse_key(struct line_spec *ls, char *tok, const char *where, struct hb_err *err)
{
    char *eq = strchr(tok, '=');
    if (!eq) {
        err_set(err, "%s: '%s' is not key=value", where, tok);
        return -1;
    }
    *eq = 0;
    const char *key = tok, *val = eq + 1;
    int var = case_var_index(key);
    if (var >= 0 && word_listed(op_get(ls->op)->size_keys, key))
        return parse_size_list(val, &ls->sizes[var], key, where, err);
    if (!strcmp(key, "dist"))
        return parse_dist_list(val, &ls->dist, where, err);
    if ((!strcmp(key, "alpha") || !strcmp(key, "beta")) && ls->op != OP_CUSTOM)
        return parse_scalar(ls, key, val, where, err);
    int *once = !strcmp(key, "special") ? &ls->have_special
                : !strcmp(key, "seed")  ? &ls->have_seed
                : !strcmp(key, "note")  ? &ls->have_note
                                        : NULL;
    if (!once && ls->op == OP_CUSTOM)
        return parse_named(ls, key, val, where, err);
    if (!once) {
        char keys[128];
        snprintf(keys, sizeof keys, "%s", op_get(ls->op)->size_keys);
        for (char *sp = keys; (sp = strchr(sp, ' '));)
            memmove(sp + 1, sp, strlen(sp) + 1), *sp = ',', sp += 2;
        err_set(err, "%s: unknown key '%s' for %s (%s, dist, special, seed, note%s)", where, key, op_name(ls->op), keys,
                op_is_gemm(ls->op) ? ", alpha, beta" : "");
        return -1;
    }
    if (*once) {
        err_set(err, "%s: %s given twice", where, key);
        return -1;
    }
    *once = 1;
    if (once == &ls->have_special)
        return parse_specials(val, &ls->specials, where, err);
    if (once == &ls->have_seed && parse_u64(val, &ls->seed)) {
        err_set(err, "%s: seed=%s: expected a whole number", where, val);
        return -1;
    }
    if (once == &ls->have_note)
        snprintf(ls->note, sizeof ls->note, "%s", val);
    return 0;
}

/* "sgemm needs M=, N= and K=": every key the op requires must be given. */
static int check_required(const struct line_spec *ls, const char *where, struct hb_err *err)
{
    if (ls->op == OP_CUSTOM && !ls->n_named) {
        err_set(err, "%s: custom needs its sizes (name=value, as the kernel's `sizes` names them)", where);
        return -1;
    }
    const char *required = op_get(ls->op)->required_keys;
    char list[128] = "", words[128];
    int missing = 0, n = 0;
    snprintf(words, sizeof words, "%s", required);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save), n++)
        missing |= !ls->sizes[case_var_index(w)].given;
    if (!missing)
        return 0;
    snprintf(words, sizeof words, "%s", required);
    int i = 0;
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save), i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s=",
                 i == 0       ? ""
                 : i == n - 1 ? " and "
                              : ", ",
                 w);
    err_set(err, "%s: %s needs %s", where, op_name(ls->op), list);
    return -1;
}

int case_parse_line(char *text, const char *file, int line, struct case_set *set, struct hb_err *err)
{
    char where[300];
    snprintf(where, sizeof where, "%s:%d", file, line);
    struct line_spec ls;
    memset(&ls, 0, sizeof ls);
    int failed = 0;
    char *cursor = text;
    char *op = next_token(&cursor, where, err, &failed);
    if (failed)
        return -1;
    if (op_parse(op, &ls.op)) {
        err_set(err, "%s: unknown op '%s' (sgemm, sgemm_strided, reduce, custom, or include)", where, op);
        return -1;
    }
    char *name = next_token(&cursor, where, err, &failed);
    if (failed)
        return -1;
    if (!name || !*name || strchr(name, '=')) {
        err_set(err, "%s: %s needs a case name before its key=value pairs", where, op);
        return -1;
    }
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-.{}", *p)) {
            err_set(err, "%s: case name '%s' may hold only letters, digits, '_', '-', '.'", where, name);
            return -1;
        }
    if (strlen(name) >= sizeof ls.name) {
        err_set(err, "%s: case name too long", where);
        return -1;
    }
    strcpy(ls.name, name);
    for (char *tok; (tok = next_token(&cursor, where, err, &failed));)
        if (parse_key(&ls, tok, where, err))
            return -1;
    if (failed)
        return -1;
    if (check_required(&ls, where, err))
        return -1;
    if (ls.have_special) {
        int special_listed = 0;
        for (int i = 0; i < ls.dist.n; i++)
            special_listed |= ls.dist.v[i] == DIST_SPECIAL;
        if (!special_listed) {
            err_set(err, "%s: special= needs dist=special", where);
            return -1;
        }
    }
    return emit_cases(&ls, file, line, set, err);
}
