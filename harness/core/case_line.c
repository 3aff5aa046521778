/* SPDX-License-Identifier: MIT */
/* case_line.c: one case catalogue line (cases/README.md):
 *   <op> <name> key=value ...
 * A value may be a comma list; a line with lists expands to the cross product of them, named
 * by substituting {dist} or a size key ({M}, {n}, ...) in the name. Which size and scalar keys
 * an op takes, and its defaults and limits, are its op_desc's; a custom line names its own
 * sizes (rows=4 cols=7). Nothing here knows one op from another. */
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
 * makes 64 and the nightly tier 235 in all. Each case is a 728-byte descriptor run on every
 * kernel and width (some 30 x 5 results per case here), so 10000 from one line is already a
 * run no one waits for; without a cap, six lists of 32 values (an 800-byte line) ask for
 * 1.07e9 descriptors, 780 GB, before anything is checked. */
#define CASE_MAX_PER_LINE 10000L
#define CASE_MAX_TOTAL 100000L

struct list {
    int n;
    long v[MAX_LIST];
    int given;
};

struct line_spec {
    enum hb_op op;
    const struct op_desc *d;
    char name[96];
    int n_sizes; /* the op's size keys in its order, or a line's own sizes in its order */
    char size_names[CASE_MAX_SIZES][16];
    struct list sizes[CASE_MAX_SIZES], dist;
    int n_scalars; /* the op's scalar keys, in its order */
    char scalar_names[CASE_MAX_SCALARS][8];
    float scalars[CASE_MAX_SCALARS];
    unsigned scalars_given;
    unsigned specials;
    int have_seed, have_special, have_note;
    uint64_t seed;
    char note[160];
};

/* The op's words (size or scalar keys) into names; returns how many (at most max). */
static int split_keys(const char *words, char *names, size_t size, int max)
{
    char buf[128];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
        snprintf(names + (size_t)n++ * size, size, "%s", w);
    return n;
}

static int size_index(const struct line_spec *ls, const char *key)
{
    for (int i = 0; i < ls->n_sizes; i++)
        if (!strcmp(ls->size_names[i], key))
            return i;
    return -1;
}

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

/* One of the op's scalars (sgemm's alpha=, beta=): one finite float, for the kernels that
 * declare that parameter. */
static int parse_scalar(struct line_spec *ls, int at, const char *val, const char *where, struct hb_err *err)
{
    const char *key = ls->scalar_names[at];
    char *end;
    errno = 0;
    float v = strtof(val, &end);
    if (ls->scalars_given & (1u << at)) {
        err_set(err, "%s: %s given twice", where, key);
        return -1;
    }
    if (!*val || *end || errno || !isfinite(v)) {
        err_set(err, "%s: %s=%s: expected one finite number", where, key, val);
        return -1;
    }
    ls->scalars_given |= 1u << at;
    ls->scalars[at] = v;
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
        int is_dist = 0, named = -1;
        if (close && close - p - 1 < (long)sizeof key) {
            snprintf(key, sizeof key, "%.*s", (int)(close - p - 1), p + 1);
            is_dist = !strcmp(key, "dist");
            named = case_size_find(c->sizes, c->n_sizes, key);
        }
        if (named >= 0)
            snprintf(piece, sizeof piece, "%ld", c->sizes[named].value), p = close + 1;
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
    c->n_scalars = ls->n_scalars;
    for (int i = 0; i < ls->n_scalars; i++) {
        snprintf(c->scalars[i].name, sizeof c->scalars[i].name, "%s", ls->scalar_names[i]);
        c->scalars[i].given = (ls->scalars_given >> i) & 1;
        c->scalars[i].value = c->scalars[i].given ? ls->scalars[i] : 0.0f;
    }
    if (c->dist == DIST_SPECIAL && !ls->have_special) {
        err_set(err, "%s: dist=special needs special=nan,inf,negzero,subnormal (any of them)", where);
        return -1;
    }
    if (ls->d->complete_case && ls->d->complete_case(c, where, err))
        return -1;
    for (int i = 0; i < c->n_sizes; i++)
        if (c->sizes[i].value < 0)
            c->sizes[i].value = 0;
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
        char keys[160] = "";
        for (int i = 0; i < c->n_sizes; i++)
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "{%s} ", c->sizes[i].name);
        err_set(err, "%s: case name '%s' is already used at %s:%d%s%s%s", where, c->name, set->c[at].file,
                set->c[at].line, total > 1 && at >= first ? " (put " : "", total > 1 && at >= first ? keys : "",
                total > 1 && at >= first ? "or {dist} in a name that lists values)" : "");
        return -1;
    }
    case_set_push(set, c);
    return 0;
}

/* Expands a line's lists to their cross product: its sizes in their order, then dist. A size
 * the line does not give is -1 for the op's complete_case. */
static int emit_cases(const struct line_spec *ls, const char *file, int line, struct case_set *set, struct hb_err *err)
{
    static const struct list uniform_only = {1, {DIST_UNIFORM}, 0}, unset = {1, {-1}, 0};
    enum { MAX_LISTS = CASE_MAX_SIZES + 1 };
    const struct list *lists[MAX_LISTS];
    int n_lists = ls->n_sizes + 1;
    long total = 1;
    for (int v = 0; v < n_lists; v++) {
        lists[v] = v == n_lists - 1     ? (ls->dist.given ? &ls->dist : &uniform_only)
                   : ls->sizes[v].given ? &ls->sizes[v]
                                        : &unset;
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
        c.n_sizes = ls->n_sizes;
        for (int i = 0; i < ls->n_sizes; i++) {
            snprintf(c.sizes[i].name, sizeof c.sizes[i].name, "%s", ls->size_names[i]);
            c.sizes[i].value = lists[i]->v[pick[i]];
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

/* A size of an op whose lines name their own (custom): any C name not taken by a case key
 * (rows=4, cols=100,200). */
static int parse_named(struct line_spec *ls, const char *key, const char *val, const char *where, struct hb_err *err)
{
    int ok = (isalpha((unsigned char)key[0]) || key[0] == '_') && strlen(key) < sizeof ls->size_names[0];
    for (const char *p = key; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok) {
        err_set(err, "%s: '%s' is not a size name (a C name of at most %zu characters)", where, key,
                sizeof ls->size_names[0] - 1);
        return -1;
    }
    int at = size_index(ls, key);
    if (at < 0 && ls->n_sizes == CASE_MAX_SIZES) {
        err_set(err, "%s: a %s case takes at most %d sizes", where, ls->d->name, CASE_MAX_SIZES);
        return -1;
    }
    if (at < 0)
        snprintf(ls->size_names[at = ls->n_sizes++], sizeof ls->size_names[0], "%s", key);
    return parse_size_list(val, &ls->sizes[at], key, where, err);
}

static int takes_scalar(const struct op_desc *op, const char *key) { return op_word_listed(op->scalar_keys, key); }

/* A key the op does not take: another op's scalar, or no key at all. */
static int unknown_key(const struct line_spec *ls, const char *key, const char *where, struct hb_err *err)
{
    char keys[160] = "", ops[128];
    op_names_where(takes_scalar, key, " and ", ops, sizeof ops);
    if (ops[0])
        return err_set(err, "%s: %s= applies to %s cases only", where, key, ops), -1;
    for (int i = 0; i < ls->n_sizes; i++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s, ", ls->size_names[i]);
    snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "dist, special, seed, note");
    for (int i = 0; i < ls->n_scalars; i++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), ", %s", ls->scalar_names[i]);
    return err_set(err, "%s: unknown key '%s' for %s (%s)", where, key, ls->d->name, keys), -1;
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
    int at = ls->d->named_sizes ? -1 : size_index(ls, key);
    if (at >= 0)
        return parse_size_list(val, &ls->sizes[at], key, where, err);
    if (!strcmp(key, "dist"))
        return parse_dist_list(val, &ls->dist, where, err);
    for (int i = 0; i < ls->n_scalars; i++)
        if (!strcmp(key, ls->scalar_names[i]))
            return parse_scalar(ls, i, val, where, err);
    int *once = !strcmp(key, "special") ? &ls->have_special
                : !strcmp(key, "seed")  ? &ls->have_seed
                : !strcmp(key, "note")  ? &ls->have_note
                                        : NULL;
    if (!once && ls->d->named_sizes)
        return parse_named(ls, key, val, where, err);
    if (!once)
        return unknown_key(ls, key, where, err);
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
    if (ls->d->named_sizes && !ls->n_sizes) {
        err_set(err, "%s: %s needs its sizes (name=value, as the kernel's `sizes` names them)", where, ls->d->name);
        return -1;
    }
    char required[CASE_MAX_SIZES][16], list[128] = "";
    int n = split_keys(ls->d->required_keys, required[0], sizeof required[0], CASE_MAX_SIZES), missing = 0;
    for (int i = 0; i < n; i++)
        missing |= size_index(ls, required[i]) < 0 || !ls->sizes[size_index(ls, required[i])].given;
    if (!missing)
        return 0;
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s=",
                 i == 0       ? ""
                 : i == n - 1 ? " and "
                              : ", ",
                 required[i]);
    err_set(err, "%s: %s needs %s", where, ls->d->name, list);
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
        char ops[160];
        op_names_where(NULL, NULL, ", ", ops, sizeof ops);
        err_set(err, "%s: unknown op '%s' (%s, or include)", where, op, ops);
        return -1;
    }
    ls.d = op_get(ls.op);
    ls.n_sizes =
        ls.d->named_sizes ? 0 : split_keys(ls.d->size_keys, ls.size_names[0], sizeof ls.size_names[0], CASE_MAX_SIZES);
    ls.n_scalars = split_keys(ls.d->scalar_keys, ls.scalar_names[0], sizeof ls.scalar_names[0], CASE_MAX_SCALARS);
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
