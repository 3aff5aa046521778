/* manifest.c: parses kernel manifests (format in kernels/README.md) and answers the
 * questions the runner asks of a kernel: its grid for a case, and which widths it is
 * written for. Every error names file:line. */
#include "manifest.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINE 4096

static struct kern_desc *push(struct kern_set *set)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 16;
        struct kern_desc *grown = realloc(set->k, (size_t)set->cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "harness: out of memory\n");
            exit(2);
        }
        set->k = grown;
    }
    struct kern_desc *k = &set->k[set->n++];
    memset(k, 0, sizeof *k);
    return k;
}

static void desc_free(struct kern_desc *k)
{
    free(k->name);
    free(k->lang);
    free(k->source);
    free(k->entry);
    free(k->note);
    free(k->cases);
    free(k->file);
}

void kern_set_free(struct kern_set *set)
{
    for (int i = 0; i < set->n; i++)
        desc_free(&set->k[i]);
    free(set->k);
    memset(set, 0, sizeof *set);
}

static int parse_block(const char *val, unsigned block[3], const char *where, struct hb_err *err)
{
    long v[3] = {1, 1, 1};
    int n = 0;
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == 3 || parse_long(tok, &v[n]) || v[n] < 1 || v[n] > 1024) {
            err_set(err, "%s: block = %s: expected 1 to 3 whole numbers from 1 to 1024", where, val);
            return -1;
        }
        n++;
    }
    if (!n || v[0] * v[1] * v[2] > 1024) {
        err_set(err, "%s: block = %s: 1 to 1024 threads in all", where, val);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        block[i] = (unsigned)v[i];
    return 0;
}

static int parse_grid(const char *val, enum hb_op op, struct kern_grid_term grid[3], const char *where,
                      struct hb_err *err)
{
    const char *vars = op_get(op)->grid_vars;
    int n = 0;
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (int i = 0; i < 3; i++)
        grid[i] = (struct kern_grid_term){0, 1};
    for (char *save = NULL, *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == 3) {
            err_set(err, "%s: grid = %s: at most 3 dimensions", where, val);
            return -1;
        }
        struct kern_grid_term t = {0, 1};
        if (isalpha((unsigned char)tok[0])) {
            if (!strchr(vars, tok[0]) || (tok[1] && tok[1] != '/')) {
                char listed[16] = "";
                for (const char *v = vars; *v; v++)
                    snprintf(listed + strlen(listed), sizeof listed - strlen(listed), "%s%c", v == vars ? "" : ", ", *v);
                err_set(err, "%s: grid term '%s': variables for %s are %s", where, tok, op_name(op), listed);
                return -1;
            }
            t.var = tok[0];
            if (tok[1] == '/' && (parse_long(tok + 2, &t.value) || t.value < 1)) {
                err_set(err, "%s: grid term '%s': divisor must be a whole number >= 1", where, tok);
                return -1;
            }
        } else if (parse_long(tok, &t.value) || t.value < 1) {
            err_set(err, "%s: grid term '%s': expected INT, VAR or VAR/INT", where, tok);
            return -1;
        }
        grid[n++] = t;
    }
    if (!n) {
        err_set(err, "%s: grid has no value", where);
        return -1;
    }
    return 0;
}

static int parse_widths(const char *val, struct kern_desc *k, const char *where, struct hb_err *err)
{
    if (!strcmp(val, "any")) {
        k->any_width = 1;
        return 0;
    }
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
        long w;
        if (parse_long(tok, &w) || w < 1 || w > 1024 || (w & (w - 1))) {
            err_set(err, "%s: widths = %s: expected 'any' or powers of two", where, val);
            return -1;
        }
        if (k->n_widths == KERN_MAX_WIDTHS) {
            err_set(err, "%s: widths lists more than %d values", where, KERN_MAX_WIDTHS);
            return -1;
        }
        k->widths[k->n_widths++] = (int)w;
    }
    if (!k->n_widths) {
        err_set(err, "%s: widths has no value", where);
        return -1;
    }
    return 0;
}

static int parse_expect(const char *val, unsigned *out, const char *where, struct hb_err *err)
{
    *out = 0;
    if (!strcmp(val, "pass"))
        return 0;
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        unsigned bit;
        if (class_parse(str_trim(tok), &bit)) {
            err_set(err, "%s: expect = %s: 'pass' or a class: wrong, nan-mismatch, unwritten, oob, "
                         "input-modified, nondeterministic, timeout, crash, api-error", where, val);
            return -1;
        }
        *out |= bit;
    }
    return 0;
}

struct seen {
    int op, lang, source, entry, block, grid, chunk, widths, expect, note, cases, needs, timeout;
    char *grid_text;
    int grid_line;
};

static int finish_kernel(struct kern_desc *k, struct seen *s, const char *path, struct hb_err *err)
{
    const char *missing = !s->op ? "op" : !s->lang ? "lang" : !s->source ? "source"
                        : !s->entry ? "entry" : !s->block ? "block" : !s->grid ? "grid"
                        : (op_get(k->op)->needs_chunk && !s->chunk) ? "chunk" : NULL;
    if (missing) {
        err_set(err, "%s:%d: kernel [%s] has no '%s'", path, k->line, k->name, missing);
        return -1;
    }
    if (!op_get(k->op)->needs_chunk && s->chunk) {
        err_set(err, "%s:%d: kernel [%s]: chunk applies to reduce only", path, s->chunk, k->name);
        return -1;
    }
    char where[300];
    snprintf(where, sizeof where, "%s:%d", path, s->grid_line);
    if (parse_grid(s->grid_text, k->op, k->grid, where, err))
        return -1;
    if (!s->widths)
        k->any_width = 1;
    if (access(k->source, R_OK)) {
        err_set(err, "%s:%d: kernel [%s]: source %s: %s", path, s->source, k->name, k->source,
                strerror(errno));
        return -1;
    }
    return 0;
}

int kern_parse_file(const char *path, struct kern_set *set, struct hb_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *dir = path_dirname(path);
    char line_buf[MAX_LINE];
    int line = 0, rc = 0;
    struct kern_desc *k = NULL;
    struct seen s;
    memset(&s, 0, sizeof s);
    while (!rc && fgets(line_buf, sizeof line_buf, f)) {
        line++;
        char where[300];
        snprintf(where, sizeof where, "%s:%d", path, line);
        if (!strchr(line_buf, '\n') && !feof(f)) {
            err_set(err, "%s: line longer than %d characters", where, MAX_LINE - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line_buf, '#');
        if (hash)
            *hash = 0;
        char *t = str_trim(line_buf);
        if (!*t)
            continue;
        if (*t == '[') {
            char *close = strchr(t, ']');
            if (!close || close[1] || close == t + 1) {
                err_set(err, "%s: expected [kernel_name]", where);
                rc = -1;
                break;
            }
            if (k && (rc = finish_kernel(k, &s, path, err)))
                break;
            free(s.grid_text);
            memset(&s, 0, sizeof s);
            *close = 0;
            for (int i = 0; i < set->n; i++)
                if (!strcmp(set->k[i].name, t + 1) && !strcmp(set->k[i].file, path)) {
                    err_set(err, "%s: kernel [%s] is already defined at line %d", where, t + 1,
                            set->k[i].line);
                    rc = -1;
                }
            if (rc)
                break;
            k = push(set);
            k->name = xstrdup(t + 1);
            k->file = xstrdup(path);
            k->line = line;
            continue;
        }
        char *eq = strchr(t, '=');
        if (!eq) {
            err_set(err, "%s: expected key = value or [kernel_name]", where);
            rc = -1;
            break;
        }
        if (!k) {
            err_set(err, "%s: key before the first [kernel_name]", where);
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = str_trim(t), *val = str_trim(eq + 1);
        int *flag = !strcmp(key, "op") ? &s.op : !strcmp(key, "lang") ? &s.lang
                  : !strcmp(key, "source") ? &s.source : !strcmp(key, "entry") ? &s.entry
                  : !strcmp(key, "block") ? &s.block : !strcmp(key, "grid") ? &s.grid
                  : !strcmp(key, "chunk") ? &s.chunk : !strcmp(key, "widths") ? &s.widths
                  : !strcmp(key, "expect") ? &s.expect : !strcmp(key, "note") ? &s.note
                  : !strcmp(key, "cases") ? &s.cases : !strcmp(key, "needs") ? &s.needs
                  : !strcmp(key, "timeout") ? &s.timeout : NULL;
        if (!flag) {
            err_set(err, "%s: unknown key '%s' (op, lang, source, entry, block, grid, chunk, widths, "
                         "expect, note, cases, needs, timeout)", where, key);
            rc = -1;
            break;
        }
        if (*flag) {
            err_set(err, "%s: '%s' given twice for kernel [%s]", where, key, k->name);
            rc = -1;
            break;
        }
        *flag = line;
        if (!*val && flag != &s.note) {
            err_set(err, "%s: '%s' has no value", where, key);
            rc = -1;
            break;
        }
        if (flag == &s.op) {
            if (op_parse(val, &k->op)) {
                err_set(err, "%s: op = %s: expected sgemm, sgemm_strided or reduce", where, val);
                rc = -1;
            }
        } else if (flag == &s.lang) {
            if (strcmp(val, "glsl") && strcmp(val, "spirv") && strcmp(val, "cuda") && strcmp(val, "hip")) {
                err_set(err, "%s: lang = %s: expected glsl, spirv, cuda or hip", where, val);
                rc = -1;
            }
            k->lang = xstrdup(val);
        } else if (flag == &s.source) {
            k->source = path_join(dir, val);
        } else if (flag == &s.entry) {
            k->entry = xstrdup(val);
        } else if (flag == &s.block) {
            rc = parse_block(val, k->block, where, err);
        } else if (flag == &s.grid) {
            s.grid_text = xstrdup(val); /* parsed at the end: it depends on op */
            s.grid_line = line;
        } else if (flag == &s.chunk) {
            if (parse_long(val, &k->chunk) || k->chunk < 1 || k->chunk > (1L << 24)) {
                err_set(err, "%s: chunk = %s: expected a whole number from 1 to 2^24", where, val);
                rc = -1;
            }
        } else if (flag == &s.widths) {
            rc = parse_widths(val, k, where, err);
        } else if (flag == &s.expect) {
            rc = parse_expect(val, &k->expect, where, err);
        } else if (flag == &s.note) {
            k->note = xstrdup(val);
        } else if (flag == &s.cases) {
            k->cases = xstrdup(val);
        } else if (flag == &s.timeout) {
            if (parse_long(val, &k->timeout_s) || k->timeout_s < 1 || k->timeout_s > 86400) {
                err_set(err, "%s: timeout = %s: expected seconds from 1 to 86400", where, val);
                rc = -1;
            }
        } else if (flag == &s.needs) {
            if (strcmp(val, "racecheck")) {
                err_set(err, "%s: needs = %s: the only requirement is racecheck", where, val);
                rc = -1;
            }
            k->needs_racecheck = 1;
        }
    }
    if (!rc && ferror(f)) {
        err_set(err, "%s: read error", path);
        rc = -1;
    }
    if (!rc && k)
        rc = finish_kernel(k, &s, path, err);
    if (!rc && !k) {
        err_set(err, "%s: no [kernel_name] section", path);
        rc = -1;
    }
    free(s.grid_text);
    free(dir);
    fclose(f);
    return rc;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int kern_discover(const char *dir, struct kern_set *set, struct hb_err *err)
{
    DIR *top = opendir(dir);
    if (!top) {
        err_set(err, "%s: cannot open kernel folder: %s", dir, strerror(errno));
        return -1;
    }
    char **paths = NULL;
    int n = 0, cap = 0;
    struct dirent *sub;
    while ((sub = readdir(top))) {
        if (sub->d_name[0] == '.')
            continue;
        char *subdir = path_join(dir, sub->d_name);
        DIR *d = opendir(subdir);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d))) {
                size_t len = strlen(e->d_name);
                if (len > 9 && !strcmp(e->d_name + len - 9, ".manifest")) {
                    if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        char **grown = realloc(paths, (size_t)cap * sizeof *grown);
                        if (!grown) {
                            fprintf(stderr, "harness: out of memory\n");
                            exit(2);
                        }
                        paths = grown;
                    }
                    paths[n++] = path_join(subdir, e->d_name);
                }
            }
            closedir(d);
        }
        free(subdir);
    }
    closedir(top);
    qsort(paths, (size_t)n, sizeof *paths, name_cmp);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!rc)
            rc = kern_parse_file(paths[i], set, err);
        free(paths[i]);
    }
    free(paths);
    return rc;
}

int kern_written_for(const struct kern_desc *k, int width)
{
    if (k->any_width)
        return 1;
    for (int i = 0; i < k->n_widths; i++)
        if (k->widths[i] == width)
            return 1;
    return 0;
}

int kern_expected_bad(const struct kern_desc *k, int width)
{
    return k->expect || !kern_written_for(k, width);
}

static long size_var(const struct hb_case *c, char var)
{
    switch (var) {
    case 'M': return c->M;
    case 'N': return c->N;
    case 'K': return c->K;
    default: return c->n;
    }
}

int kern_grid(const struct kern_desc *k, const struct hb_case *c, unsigned grid[3], struct hb_err *err)
{
    for (int i = 0; i < 3; i++) {
        const struct kern_grid_term *t = &k->grid[i];
        long v = t->var ? (size_var(c, t->var) + t->value - 1) / t->value : t->value;
        /* An empty SGEMM output still gets one block, so the kernel's bounds checks run:
         * "M = 0: nothing written, no crash". A reduce block past the end has no partial. */
        if (op_is_gemm(k->op) && v < 1)
            v = 1;
        if (v > 0x7fffffffL) {
            err_set(err, "grid dimension %d of %s for case %s is %ld blocks", i, k->name, c->name, v);
            return -1;
        }
        grid[i] = (unsigned)v;
    }
    return 0;
}

int kern_runs_case(const struct kern_desc *k, const struct hb_case *c)
{
    return k->op == c->op && (!k->cases || !fnmatch(k->cases, c->name, 0));
}

void kern_widths_str(const struct kern_desc *k, char *buf, unsigned len)
{
    if (k->any_width) {
        snprintf(buf, len, "any");
        return;
    }
    unsigned used = 0;
    buf[0] = 0;
    for (int i = 0; i < k->n_widths && used < len; i++)
        used += (unsigned)snprintf(buf + used, len - used, "%s%d", i ? " " : "", k->widths[i]);
}

void kern_spec(const struct kern_desc *k, const char *build_dir, struct hb_kernel_spec *out)
{
    memset(out, 0, sizeof *out);
    out->name = k->name;
    out->lang = k->lang;
    out->source_path = k->source;
    out->entry = k->entry;
    out->build_dir = build_dir;
    for (int i = 0; i < 3; i++)
        out->block[i] = k->block[i];
}
