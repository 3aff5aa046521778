/* case.c: the case catalogue parser. Line format (documented in cases/README.md):
 *   <op> <name> key=value ...      # comment
 *   include <file>
 * A value may be a comma list; a line with lists expands to the cross product of them,
 * named by substituting {M} {N} {K} {n} {dist} in the name. Every error names file:line. */
#include "case.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32
#define MAX_INCLUDE_DEPTH 8
#define MAX_LINE 4096
/* The kernel ABI passes sizes as 32-bit ints and indexes with them. */
#define MAX_DIM 2147483647L
#define MAX_ELEMS 2147483647L

static const char *const dist_names[DIST_COUNT] = {"exact", "uniform", "cancel", "special", "wideint"};

const char *case_dist_name(enum case_dist d) { return d < DIST_COUNT ? dist_names[d] : "?"; }

struct list {
    int n;
    long v[MAX_LIST];
    int given;
};

struct line_spec {
    enum hb_op op;
    char name[96];
    struct list M, N, K, n, dist;
    struct list lda, ldb, ldc; /* sgemm_strided: one value each, or absent for "one more" */
    unsigned specials;
    int have_seed, have_special, have_note;
    uint64_t seed;
    char note[160];
};

static void case_set_push(struct case_set *set, const struct hb_case *c)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 64;
        struct hb_case *grown = realloc(set->c, (size_t)set->cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "harness: out of memory\n");
            exit(2);
        }
        set->c = grown;
    }
    set->c[set->n++] = *c;
}

void case_set_free(struct case_set *set)
{
    free(set->c);
    set->c = NULL;
    set->n = set->cap = 0;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int parse_size_list(const char *val, struct list *l, const char *key, const char *where,
                           struct hb_err *err)
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
            err_set(err, "%s: %s=%s: expected whole numbers from 0 to %ld, comma separated", where,
                    key, val, MAX_DIM);
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
            if (!strcmp(str_trim(tok), dist_names[d]))
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
    static const struct { const char *name; unsigned bit; } names[] = {
        {"nan", SPECIAL_NAN}, {"inf", SPECIAL_INF}, {"negzero", SPECIAL_NEGZERO},
        {"subnormal", SPECIAL_SUBNORMAL}};
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

/* Leading dimensions default to one element of padding per row, as sblat3 uses; given,
 * they must hold a row. */
static int strided_case(const struct line_spec *ls, struct hb_case *c, const char *where, struct hb_err *err)
{
    const struct list *given[3] = {&ls->lda, &ls->ldb, &ls->ldc};
    const char *names[3] = {"lda", "ldb", "ldc"};
    long rows[3] = {c->K, c->N, c->N};
    long *out[3] = {&c->lda, &c->ldb, &c->ldc};
    for (int i = 0; i < 3; i++) {
        if (given[i]->n > 1) {
            err_set(err, "%s: %s takes one value", where, names[i]);
            return -1;
        }
        *out[i] = given[i]->given ? given[i]->v[0] : rows[i] + 1;
        if (*out[i] < rows[i] || *out[i] < 1) {
            err_set(err, "%s: %s=%ld is shorter than a row (%ld)", where, names[i], *out[i], rows[i]);
            return -1;
        }
    }
    return 0;
}

static int expand_name(const char *tmpl, const struct hb_case *c, char *out, size_t len)
{
    size_t used = 0;
    for (const char *p = tmpl; *p;) {
        char piece[64] = "";
        if (!strncmp(p, "{M}", 3))
            snprintf(piece, sizeof piece, "%ld", c->M), p += 3;
        else if (!strncmp(p, "{N}", 3))
            snprintf(piece, sizeof piece, "%ld", c->N), p += 3;
        else if (!strncmp(p, "{K}", 3))
            snprintf(piece, sizeof piece, "%ld", c->K), p += 3;
        else if (!strncmp(p, "{n}", 3))
            snprintf(piece, sizeof piece, "%ld", c->n), p += 3;
        else if (!strncmp(p, "{dist}", 6))
            snprintf(piece, sizeof piece, "%s", case_dist_name(c->dist)), p += 6;
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

static int emit_cases(const struct line_spec *ls, const char *file, int line, struct case_set *set,
                      struct hb_err *err)
{
    const char *where_fmt = "%s:%d";
    char where[300];
    snprintf(where, sizeof where, where_fmt, file, line);
    static const struct list one_zero = {1, {0}, 0};
    const struct list *Ms = op_is_gemm(ls->op) ? &ls->M : &one_zero;
    const struct list *Ns = op_is_gemm(ls->op) ? &ls->N : &one_zero;
    const struct list *Ks = op_is_gemm(ls->op) ? &ls->K : &one_zero;
    const struct list *ns = ls->op == OP_REDUCE ? &ls->n : &one_zero;
    static const struct list uniform_only = {1, {DIST_UNIFORM}, 0};
    const struct list *ds = ls->dist.given ? &ls->dist : &uniform_only;
    int first = set->n;
    long total = (long)Ms->n * Ns->n * Ks->n * ns->n * ds->n;
    for (int a = 0; a < Ms->n; a++)
        for (int b = 0; b < Ns->n; b++)
            for (int k = 0; k < Ks->n; k++)
                for (int r = 0; r < ns->n; r++)
                    for (int d = 0; d < ds->n; d++) {
                        struct hb_case c;
                        memset(&c, 0, sizeof c);
                        c.op = ls->op;
                        c.M = Ms->v[a], c.N = Ns->v[b], c.K = Ks->v[k], c.n = ns->v[r];
                        c.dist = (enum case_dist)ds->v[d];
                        c.specials = ls->specials;
                        if (c.dist == DIST_SPECIAL && !ls->have_special) {
                            err_set(err, "%s: dist=special needs special=nan,inf,negzero,subnormal "
                                         "(any of them)", where);
                            return -1;
                        }
                        if (c.op == OP_SGEMM_STRIDED && strided_case(ls, &c, where, err))
                            return -1;
                        if (op_is_gemm(c.op) && (c.M * (c.lda ? c.lda : c.K) > MAX_ELEMS ||
                                                 c.K * (c.ldb ? c.ldb : c.N) > MAX_ELEMS ||
                                                 c.M * (c.ldc ? c.ldc : c.N) > MAX_ELEMS)) {
                            err_set(err, "%s: %ldx%ldx%ld has a matrix of more than %ld elements",
                                    where, c.M, c.N, c.K, MAX_ELEMS);
                            return -1;
                        }
                        if (expand_name(ls->name, &c, c.name, sizeof c.name)) {
                            err_set(err, "%s: case name too long", where);
                            return -1;
                        }
                        c.seed = ls->have_seed ? ls->seed : fnv1a(c.name);
                        snprintf(c.note, sizeof c.note, "%s", ls->note);
                        snprintf(c.file, sizeof c.file, "%s", file);
                        c.line = line;
                        for (int i = 0; i < set->n; i++)
                            if (!strcmp(set->c[i].name, c.name)) {
                                err_set(err, "%s: case name '%s' is already used at %s:%d%s", where,
                                        c.name, set->c[i].file, set->c[i].line,
                                        total > 1 && i >= first
                                            ? " (put {M} {N} {K} {n} or {dist} in a name that lists values)"
                                            : "");
                                return -1;
                            }
                        case_set_push(set, &c);
                    }
    return 0;
}

static int parse_case_line(char *text, const char *file, int line, struct case_set *set,
                           struct hb_err *err)
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
        err_set(err, "%s: unknown op '%s' (sgemm, sgemm_strided, reduce, or include)", where, op);
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
    for (char *tok; (tok = next_token(&cursor, where, err, &failed));) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            err_set(err, "%s: '%s' is not key=value", where, tok);
            return -1;
        }
        *eq = 0;
        const char *key = tok, *val = eq + 1;
        int rc = 0;
        if (op_is_gemm(ls.op) && !strcmp(key, "M"))
            rc = parse_size_list(val, &ls.M, key, where, err);
        else if (op_is_gemm(ls.op) && !strcmp(key, "N"))
            rc = parse_size_list(val, &ls.N, key, where, err);
        else if (ls.op == OP_SGEMM_STRIDED && !strcmp(key, "lda"))
            rc = parse_size_list(val, &ls.lda, key, where, err);
        else if (ls.op == OP_SGEMM_STRIDED && !strcmp(key, "ldb"))
            rc = parse_size_list(val, &ls.ldb, key, where, err);
        else if (ls.op == OP_SGEMM_STRIDED && !strcmp(key, "ldc"))
            rc = parse_size_list(val, &ls.ldc, key, where, err);
        else if (op_is_gemm(ls.op) && !strcmp(key, "K"))
            rc = parse_size_list(val, &ls.K, key, where, err);
        else if (ls.op == OP_REDUCE && !strcmp(key, "n"))
            rc = parse_size_list(val, &ls.n, key, where, err);
        else if (!strcmp(key, "dist"))
            rc = parse_dist_list(val, &ls.dist, where, err);
        else if (!strcmp(key, "special") && !ls.have_special) {
            ls.have_special = 1;
            rc = parse_specials(val, &ls.specials, where, err);
        } else if (!strcmp(key, "seed") && !ls.have_seed) {
            ls.have_seed = 1;
            if (parse_u64(val, &ls.seed)) {
                err_set(err, "%s: seed=%s: expected a whole number", where, val);
                rc = -1;
            }
        } else if (!strcmp(key, "note") && !ls.have_note) {
            ls.have_note = 1;
            snprintf(ls.note, sizeof ls.note, "%s", val);
        } else if (!strcmp(key, "special") || !strcmp(key, "seed") || !strcmp(key, "note")) {
            err_set(err, "%s: %s given twice", where, key);
            rc = -1;
        } else {
            err_set(err, "%s: unknown key '%s' for %s (%s)", where, key, op_name(ls.op),
                    ls.op == OP_SGEMM ? "M, N, K, dist, special, seed, note"
                    : ls.op == OP_SGEMM_STRIDED ? "M, N, K, lda, ldb, ldc, dist, special, seed, note"
                                      : "n, dist, special, seed, note");
            rc = -1;
        }
        if (rc)
            return -1;
    }
    if (failed)
        return -1;
    if (op_is_gemm(ls.op) && (!ls.M.given || !ls.N.given || !ls.K.given)) {
        err_set(err, "%s: %s needs M=, N= and K=", where, op_name(ls.op));
        return -1;
    }
    if (ls.op == OP_REDUCE && !ls.n.given) {
        err_set(err, "%s: reduce needs n=", where);
        return -1;
    }
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

static int parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err,
                      int depth);

static int parse_file_depth(const char *path, struct case_set *set, struct hb_err *err, int depth)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = xcalloc(cap, 1);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            cap *= 2;
            char *grown = realloc(buf, cap);
            if (!grown) {
                fclose(f);
                free(buf);
                err_set(err, "%s: out of memory", path);
                return -1;
            }
            buf = grown;
        }
    }
    int read_failed = ferror(f);
    fclose(f);
    if (read_failed) {
        free(buf);
        err_set(err, "%s: read error", path);
        return -1;
    }
    buf[len] = 0;
    const char *nul = memchr(buf, 0, len);
    if (nul) {
        int line = 1;
        for (const char *p = buf; p < nul; p++)
            line += *p == '\n';
        free(buf);
        err_set(err, "%s:%d: holds a NUL byte: not a text case catalogue", path, line);
        return -1;
    }
    int rc = parse_text(path, buf, set, err, depth);
    free(buf);
    return rc;
}

static int parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err,
                      int depth)
{
    int line = 0;
    for (const char *p = text; *p;) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n >= MAX_LINE) {
            err_set(err, "%s:%d: line longer than %d characters", path, line, MAX_LINE - 1);
            return -1;
        }
        char buf[MAX_LINE];
        memcpy(buf, p, n);
        buf[n] = 0;
        p = eol ? eol + 1 : p + n;
        /* '#' starts a comment unless it sits inside a quoted value. */
        int quoted = 0;
        for (char *c = buf; *c; c++) {
            if (*c == '"')
                quoted = !quoted;
            else if (*c == '#' && !quoted) {
                *c = 0;
                break;
            }
        }
        char *s = str_trim(buf);
        if (!*s)
            continue;
        if (!strncmp(s, "include", 7) && (isspace((unsigned char)s[7]) || !s[7])) {
            char *target = str_trim(s + 7);
            if (!*target) {
                err_set(err, "%s:%d: include needs a file name", path, line);
                return -1;
            }
            if (depth == MAX_INCLUDE_DEPTH) {
                err_set(err, "%s:%d: include %s: includes nest deeper than %d (an include loop?)", path,
                        line, target, MAX_INCLUDE_DEPTH);
                return -1;
            }
            char *dir = path_dirname(path);
            char *inc = path_join(dir, target);
            free(dir);
            int rc = parse_file_depth(inc, set, err, depth + 1);
            size_t inc_len = strlen(inc);
            if (rc && !strncmp(err->msg, inc, inc_len) && !strncmp(err->msg + inc_len, ": ", 2)) {
                /* A file-level problem (missing, unreadable, a folder): name the include line. */
                char inner[sizeof err->msg];
                memcpy(inner, err->msg, sizeof inner);
                err_set(err, "%s:%d: include %.900s", path, line, inner);
            }
            free(inc);
            if (rc)
                return -1;
            continue;
        }
        if (parse_case_line(s, path, line, set, err))
            return -1;
    }
    return 0;
}

int case_parse_file(const char *path, struct case_set *set, struct hb_err *err)
{
    return parse_file_depth(path, set, err, 0);
}

int case_parse_text(const char *path, const char *text, struct case_set *set, struct hb_err *err)
{
    return parse_text(path, text, set, err, 0);
}
