/* SPDX-License-Identifier: MIT */
/* manifest_parse.c: reads kernel manifests (format in kernels/README.md) into kern_desc
 * records. Keys are one table: each has a setter, and whether the kernel must give it.
 * Every error names file:line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "custom.h"
#include "infile.h"
#include "manifest.h"
#include "manifest_values.h"
#include "reduce.h"

#define MAX_LINE 4096

/* What a setter gets: the kernel, the value, where it was said, and the manifest's folder. */
struct key_ctx {
    struct kern_desc *k;
    const char *val, *where, *dir;
    char **later; /* this key's text, for a key finish_kernel parses: its words depend on op */
    struct hb_err *err;
};

static int set_op(struct key_ctx *c)
{
    if (!op_parse(c->val, &c->k->op))
        return 0;
    char ops[160];
    op_names_where(NULL, NULL, " or ", ops, sizeof ops);
    err_set(c->err, "%s: op = %s: expected %s", c->where, c->val, ops);
    return -1;
}

static int set_lang(struct key_ctx *c)
{
    c->k->lang = xstrdup(c->val);
    if (!strcmp(c->val, "glsl") || !strcmp(c->val, "spirv") || !strcmp(c->val, "cuda") || !strcmp(c->val, "hip"))
        return 0;
    err_set(c->err, "%s: lang = %s: expected glsl, spirv, cuda or hip", c->where, c->val);
    return -1;
}

/* Absolute: backends compile from other folders (a wrapper in the cache includes it). */
static int set_source(struct key_ctx *c)
{
    char *joined = path_join(c->dir, c->val), *real = realpath(joined, NULL);
    c->k->source = real ? real : joined;
    if (real)
        free(joined);
    return 0;
}
static int set_entry(struct key_ctx *c) { return c->k->entry = xstrdup(c->val), 0; }
static int set_block(struct key_ctx *c) { return kern_parse_block(c->val, c->k->block, c->where, c->err); }
static int set_later(struct key_ctx *c) { return *c->later = xstrdup(c->val), 0; }
static int set_widths(struct key_ctx *c) { return kern_parse_widths(c->val, c->k, c->where, c->err); }
static int set_expect(struct key_ctx *c) { return kern_parse_expect(c->val, &c->k->expect, c->where, c->err); }
static int set_note(struct key_ctx *c) { return c->k->note = xstrdup(c->val), 0; }
static int set_cases(struct key_ctx *c) { return c->k->cases = xstrdup(c->val), 0; }

static int set_chunk(struct key_ctx *c)
{
    if (!parse_long(c->val, &c->k->chunk) && c->k->chunk >= 1 && c->k->chunk <= (1L << 24))
        return 0;
    err_set(c->err, "%s: chunk = %s: expected a whole number from 1 to 2^24", c->where, c->val);
    return -1;
}

static int set_timeout(struct key_ctx *c)
{
    if (!parse_long(c->val, &c->k->timeout_s) && c->k->timeout_s >= 1 && c->k->timeout_s <= 86400)
        return 0;
    err_set(c->err, "%s: timeout = %s: expected seconds from 1 to 86400", c->where, c->val);
    return -1;
}

static int set_layout(struct key_ctx *c)
{
    c->k->col_major = !strcmp(c->val, "col");
    if (c->k->col_major || !strcmp(c->val, "row"))
        return 0;
    err_set(c->err, "%s: layout = %s: expected row or col", c->where, c->val);
    return -1;
}

static int set_shared_bytes(struct key_ctx *c)
{
    long v;
    if (!parse_long(c->val, &v) && v >= 0 && v <= (1L << 24))
        return c->k->shared_bytes = (unsigned)v, 0;
    err_set(c->err, "%s: shared_bytes = %s: expected bytes from 0 to 16 MiB", c->where, c->val);
    return -1;
}

static int set_includes(struct key_ctx *c) { return kern_parse_includes(c->val, c->dir, c->k, c->where, c->err); }
static int set_defines(struct key_ctx *c) { return kern_parse_defines(c->val, c->k, c->where, c->err); }

static int set_deterministic(struct key_ctx *c)
{
    c->k->nondeterministic = !strcmp(c->val, "no");
    if (c->k->nondeterministic || !strcmp(c->val, "yes"))
        return 0;
    err_set(c->err, "%s: deterministic = %s: expected yes or no", c->where, c->val);
    return -1;
}

static int set_needs(struct key_ctx *c)
{
    c->k->needs_racecheck = 1;
    if (!strcmp(c->val, "racecheck"))
        return 0;
    err_set(c->err, "%s: needs = %s: the only requirement is racecheck", c->where, c->val);
    return -1;
}

/* Every key a manifest may hold; `required` ones must be given for every kernel. */
static const struct kern_key {
    const char *name;
    int (*set)(struct key_ctx *c);
    int required, may_be_empty;
} kern_keys[] = {
    {"op", set_op, 1, 0},
    {"lang", set_lang, 1, 0},
    {"source", set_source, 1, 0},
    {"entry", set_entry, 1, 0},
    {"block", set_block, 1, 0},
    {"grid", set_later, 1, 0},
    {"chunk", set_chunk, 0, 0},
    {"widths", set_widths, 0, 0},
    {"expect", set_expect, 0, 0},
    {"note", set_note, 0, 1},
    {"cases", set_cases, 0, 0},
    {"needs", set_needs, 0, 0},
    {"timeout", set_timeout, 0, 0},
    {"args", set_later, 0, 0},
    {"layout", set_layout, 0, 0},
    {"shared_bytes", set_shared_bytes, 0, 0},
    {"deterministic", set_deterministic, 0, 0},
    {"includes", set_includes, 0, 0},
    {"defines", set_defines, 0, 0},
    /* op = custom's own (custom_parse.c parses them), in cus_key_names' order. */
    {"sizes", set_later, 0, 0},
    {"buffers", set_later, 0, 0},
    {"scalars", set_later, 0, 0},
    {"reference", set_later, 0, 0},
    {"tolerance", set_later, 0, 0},
    {"oracle", set_later, 0, 0},
    /* op = reduce's forms (reduce_form.c parses them), in red_key_names' order. */
    {"type", set_later, 0, 0},
    {"combine", set_later, 0, 0},
    {"partials", set_later, 0, 0},
    {"identity", set_later, 0, 0},
};
#define KERN_KEYS ((int)(sizeof kern_keys / sizeof kern_keys[0]))

/* Parse state of the kernel being read: the line each key was given on (0: not given), and
 * the text of the keys finish_kernel parses. */
struct seen {
    int line[KERN_KEYS];
    char *later[KERN_KEYS];
};

static void seen_reset(struct seen *s)
{
    for (int i = 0; i < KERN_KEYS; i++)
        free(s->later[i]);
    memset(s, 0, sizeof *s);
}

static int key_index(const char *name)
{
    for (int i = 0; i < KERN_KEYS; i++)
        if (!strcmp(kern_keys[i].name, name))
            return i;
    return -1;
}

static int declares_signature(const struct op_desc *op, const char *word)
{
    (void)word;
    return op->declares_signature;
}

/* An op whose kernels declare their own sizes, buffers, scalars and grid (custom): those keys
 * (custom_parse.c); any other op may not give them. */
static int finish_custom(struct kern_desc *k, struct seen *s, const char *path, const char *dir, struct hb_err *err)
{
    int first = key_index(cus_key_names[0]);
    if (!op_get(k->op)->declares_signature) {
        char ops[128];
        op_names_where(declares_signature, NULL, " and ", ops, sizeof ops);
        for (int i = 0; i < CUS_KEYS; i++)
            if (s->line[first + i])
                return err_set(err, "%s:%d: kernel [%s]: %s applies to op = %s only", path, s->line[first + i], k->name,
                               cus_key_names[i], ops),
                       -1;
        return 0;
    }
    struct cus_keys keys = {.grid = s->later[key_index("grid")],
                            .kernel = k->name,
                            .grid_line = s->line[key_index("grid")],
                            .kernel_line = k->line};
    for (int i = 0; i < CUS_KEYS; i++)
        keys.text[i] = s->later[first + i], keys.line[i] = s->line[first + i];
    if (!s->later[key_index("args")])
        return err_set(err, "%s:%d: %s kernel [%s] has no 'args' (its parameters in order)", path, k->line,
                       op_name(k->op), k->name),
               -1;
    k->custom = cus_parse(&keys, path, dir, err);
    return k->custom ? 0 : -1;
}

/* The source must be a readable file. */
static int finish_source(const struct kern_desc *k, const struct seen *s, const char *path, struct hb_err *err)
{
    if (access(k->source, R_OK)) {
        err_set(err, "%s:%d: kernel [%s]: source %s: %s", path, s->line[key_index("source")], k->name, k->source,
                strerror(errno));
        return -1;
    }
    /* A compiler handed a folder says "No such file", and one handed /dev/zero reads forever. */
    struct stat st;
    if (stat(k->source, &st) == 0 && !S_ISREG(st.st_mode)) {
        err_set(err, "%s:%d: kernel [%s]: source %s is %s, not a source file", path, s->line[key_index("source")],
                k->name, k->source, S_ISDIR(st.st_mode) ? "a folder" : "a device, pipe or socket");
        return -1;
    }
    return 0;
}

static int takes_chunk(const struct op_desc *op, const char *word) { return (void)word, op->takes_chunk; }
static int takes_layout(const struct op_desc *op, const char *word) { return (void)word, op->takes_layout; }

static int finish_kernel(struct kern_desc *k, struct seen *s, const char *path, const char *dir, struct hb_err *err)
{
    for (int i = 0; i < KERN_KEYS; i++)
        if (kern_keys[i].required && !s->line[i]) {
            err_set(err, "%s:%d: kernel [%s] has no '%s'", path, k->line, k->name, kern_keys[i].name);
            return -1;
        }
    int chunk_line = s->line[key_index("chunk")], layout_line = s->line[key_index("layout")];
    char ops[128];
    if (!op_get(k->op)->takes_chunk && chunk_line) {
        op_names_where(takes_chunk, NULL, " and ", ops, sizeof ops);
        err_set(err, "%s:%d: kernel [%s]: chunk applies to %s only", path, chunk_line, k->name, ops);
        return -1;
    }
    int red = key_index(red_key_names[0]);
    if (red_parse(k, (const char *const *)&s->later[red], &s->line[red], path, err))
        return -1;
    char where[300];
    snprintf(where, sizeof where, "%s:%d", path, s->line[key_index("grid")]);
    if (finish_custom(k, s, path, dir, err) ||
        (!op_get(k->op)->declares_signature &&
         kern_parse_grid(s->later[key_index("grid")], k->op, k->grid, where, err)))
        return -1;
    snprintf(where, sizeof where, "%s:%d", path, s->line[key_index("args")]);
    if (s->later[key_index("args")] && kern_parse_args(s->later[key_index("args")], k, where, err))
        return -1;
    if (red_check_args(k, s->line[key_index("args")], err))
        return -1;
    if (layout_line && !op_get(k->op)->takes_layout) {
        op_names_where(takes_layout, NULL, " and ", ops, sizeof ops);
        err_set(err, "%s:%d: kernel [%s]: layout applies to %s only", path, layout_line, k->name, ops);
        return -1;
    }
    if (!s->line[key_index("widths")])
        k->any_width = 1;
    return finish_source(k, s, path, err);
}

/* A "[name]" line: finishes the kernel before it and starts the next. */
static int start_kernel(char *t, struct kern_set *set, struct kern_desc **k, struct seen *s, const char *path,
                        const char *dir, int line, struct hb_err *err)
{
    char *close = strchr(t, ']');
    if (!close || close[1] || close == t + 1) {
        err_set(err, "%s:%d: expected [kernel_name]", path, line);
        return -1;
    }
    if (*k && finish_kernel(*k, s, path, dir, err))
        return -1;
    seen_reset(s);
    *close = 0;
    /* Rows and baselines hold a kernel's name in 63 bytes: a longer one would be cut. */
    if (strlen(t + 1) > KERN_MAX_NAME) {
        err_set(err, "%s:%d: kernel name [%.40s...] is longer than %d bytes", path, line, t + 1, KERN_MAX_NAME);
        return -1;
    }
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->k[i].name, t + 1) && !strcmp(set->k[i].file, path)) {
            err_set(err, "%s:%d: kernel [%s] is already defined at line %d", path, line, t + 1, set->k[i].line);
            return -1;
        }
    *k = kern_set_push(set);
    (*k)->name = xstrdup(t + 1);
    (*k)->file = xstrdup(path);
    (*k)->line = line;
    return 0;
}

/* A "key = value" line of the current kernel. */
static int set_key(char *t, struct kern_desc *k, struct seen *s, const char *dir, const char *where, struct hb_err *err)
{
    char *eq = strchr(t, '=');
    if (!eq) {
        err_set(err, "%s: expected key = value or [kernel_name]", where);
        return -1;
    }
    if (!k) {
        err_set(err, "%s: key before the first [kernel_name]", where);
        return -1;
    }
    *eq = 0;
    char *key = str_trim(t), *val = str_trim(eq + 1);
    int i = key_index(key);
    if (i < 0) {
        char names[384] = "";
        for (int j = 0; j < KERN_KEYS; j++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "", kern_keys[j].name);
        err_set(err, "%s: unknown key '%s' (%s)", where, key, names);
        return -1;
    }
    if (s->line[i]) {
        err_set(err, "%s: '%s' given twice for kernel [%s]", where, key, k->name);
        return -1;
    }
    s->line[i] = atoi(strrchr(where, ':') + 1);
    if (!*val && !kern_keys[i].may_be_empty) {
        err_set(err, "%s: '%s' has no value", where, key);
        return -1;
    }
    struct key_ctx c = {k, val, where, dir, &s->later[i], err};
    return kern_keys[i].set(&c);
}

/* One line into buf (cap bytes, the newline dropped): its length, -1 at the end of the file,
 * -2 when it does not fit, -3 when it holds a NUL byte (a binary, not a manifest: fgets
 * would show it as a line cut short). */
static int read_line(FILE *f, char *buf, int cap)
{
    int len = 0, ch, nul = 0;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (len + 1 >= cap)
            return -2;
        nul |= ch == 0;
        buf[len++] = (char)ch;
    }
    buf[len] = 0;
    return nul ? -3 : ch == EOF && !len ? -1 : len;
}

static int parse_lines(FILE *f, const char *path, struct kern_set *set, struct hb_err *err)
{
    char *dir = path_dirname(path);
    char line_buf[MAX_LINE];
    int line = 0, rc = 0;
    struct kern_desc *k = NULL;
    struct seen s;
    memset(&s, 0, sizeof s);
    int len;
    while (!rc && (len = read_line(f, line_buf, (int)sizeof line_buf - 1)) != -1) {
        char where[300];
        snprintf(where, sizeof where, "%s:%d", path, ++line);
        if (len < 0) {
            if (len == -3)
                err_set(err, "%s: holds a NUL byte: not a text manifest", where);
            else
                err_set(err, "%s: line longer than %d characters", where, MAX_LINE - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line_buf, '#');
        if (hash)
            *hash = 0;
        char *t = str_trim(line_buf);
        if (*t)
            rc = *t == '[' ? start_kernel(t, set, &k, &s, path, dir, line, err) : set_key(t, k, &s, dir, where, err);
    }
    if (!rc && ferror(f))
        err_set(err, "%s: read error", path), rc = -1;
    if (!rc && k)
        rc = finish_kernel(k, &s, path, dir, err);
    if (!rc && !k)
        err_set(err, "%s: no [kernel_name] section", path), rc = -1;
    seen_reset(&s);
    free(dir);
    return rc;
}

int kern_parse_file(const char *path, struct kern_set *set, struct hb_err *err)
{
    FILE *f = infile_open(path, err);
    if (!f)
        return -1;
    int rc = parse_lines(f, path, set, err);
    fclose(f);
    return rc;
}
