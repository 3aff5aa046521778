/* SPDX-License-Identifier: MIT */
/* manifest_values.c: the grammars of a manifest's key values (kernels/README.md): block,
 * grid, widths, expect, args, includes and defines. The reader (manifest_parse.c) hands each its text and where
 * it was said; each returns 0, or -1 with "file:line: problem". */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "manifest.h"
#include "manifest_values.h"

#define MAX_LINE 4096

int kern_parse_block(const char *val, unsigned block[3], const char *where, struct hb_err *err)
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

int kern_parse_grid(const char *val, enum hb_op op, struct kern_grid_term grid[3], const char *where,
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
                    snprintf(listed + strlen(listed), sizeof listed - strlen(listed), "%s%c", v == vars ? "" : ", ",
                             *v);
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

int kern_parse_widths(const char *val, struct kern_desc *k, const char *where, struct hb_err *err)
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

int kern_parse_expect(const char *val, unsigned *out, const char *where, struct hb_err *err)
{
    *out = 0;
    if (!strcmp(val, "pass"))
        return 0;
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        unsigned bit;
        /* no-case is the plan's row for a kernel that never runs, not a result a canary shows. */
        if (class_parse(str_trim(tok), &bit) || bit == CLS_NO_CASE) {
            err_set(err,
                    "%s: expect = %s: 'pass' or a class: wrong, nan-mismatch, unwritten, oob, "
                    "input-modified, nondeterministic, timeout, crash, api-error",
                    where, val);
            return -1;
        }
        *out |= bit;
    }
    return 0;
}

/* One word of `args`: a vocabulary word of the op, an integer optionally with its width
 * (`n:u64` for a size_t parameter). */
static int kern_parse_arg(char *tok, struct kern_desc *k, const char *where, struct hb_err *err)
{
    char *colon = strchr(tok, ':');
    if (colon)
        *colon++ = 0;
    const struct op_param *params = kern_params(k, k->op);
    int i = kern_param_find(k, k->op, tok);
    if (i < 0) {
        char words[256] = "";
        for (const struct op_param *p = params; p->name; p++)
            snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s", p == params ? "" : " ", p->name);
        err_set(err, "%s: args: '%s' is not a parameter %s knows (%s)", where, tok,
                k->custom ? "the kernel" : op_name(k->op), words);
        return -1;
    }
    struct kern_arg a = {(unsigned char)i, params[i].kind};
    int is_int = a.kind == HB_PARAM_I32;
    if (colon &&
        (!is_int || (strcmp(colon, "i32") && strcmp(colon, "u32") && strcmp(colon, "i64") && strcmp(colon, "u64")))) {
        err_set(err, "%s: args: '%s:%s': a width (i32, u32, i64, u64) is for an integer", where, tok, colon);
        return -1;
    }
    if (colon && colon[1] == '6')
        a.kind = HB_PARAM_I64;
    for (int j = 0; j < k->n_args; j++)
        if (k->args[j].param == a.param) {
            err_set(err, "%s: args: '%s' is given twice", where, tok);
            return -1;
        }
    if (k->n_args == HB_MAX_PARAMS) {
        err_set(err, "%s: args: more than %d parameters", where, HB_MAX_PARAMS);
        return -1;
    }
    k->args[k->n_args++] = a;
    return 0;
}

/* `args`: the kernel's parameters in its order. Every buffer of the op must be among them (a
 * kernel that cannot see its output cannot be judged); sizes it takes from the grid may not. */
int kern_parse_args(const char *val, struct kern_desc *k, const char *where, struct hb_err *err)
{
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save))
        if (kern_parse_arg(tok, k, where, err))
            return -1;
    const struct op_param *p = kern_params(k, k->op);
    const struct op_desc *op = op_get(k->op);
    for (int i = 0; p[i].name; i++) {
        int needed = op->args_needed && op_word_listed(op->args_needed, p[i].name);
        int listed = p[i].kind != HB_PARAM_BUF && !needed;
        for (int j = 0; j < k->n_args; j++)
            listed |= k->args[j].param == i;
        if (!listed) {
            char why[160];
            snprintf(why, sizeof why, "%s %s", op->name, needed ? op->args_needed_why : "");
            err_set(err, "%s: args = %s: '%s' is missing (%s)", where, val, p[i].name,
                    p[i].kind == HB_PARAM_BUF ? "every buffer of the op is a parameter" : why);
            return -1;
        }
    }
    return 0;
}

/* `includes = DIR...`: folders relative to the manifest, each one that exists, for every
 * compiler that builds the source (-I, in this order). */
int kern_parse_includes(const char *val, const char *dir, struct kern_desc *k, const char *where, struct hb_err *err)
{
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *joined = path_join(dir, tok), *real = realpath(joined, NULL);
        struct stat st;
        int ok = real && stat(real, &st) == 0 && S_ISDIR(st.st_mode);
        if (!ok || k->n_includes == KERN_MAX_FLAGS) {
            err_set(err, "%s: includes: %s: %s", where, joined,
                    !ok ? (real ? "not a folder" : strerror(errno)) : "more than 16 folders");
            free(joined), free(real);
            return -1;
        }
        free(joined);
        k->includes[k->n_includes++] = real;
    }
    return 0;
}

/* `defines = NAME[=VALUE]...`: macros for every compiler that builds the source (-D). A NAME is
 * a C identifier; a VALUE is the rest of its word (no spaces). */
int kern_parse_defines(const char *val, struct kern_desc *k, const char *where, struct hb_err *err)
{
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *save = NULL, *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        size_t name = strcspn(tok, "=");
        int ok = (isalpha((unsigned char)tok[0]) || tok[0] == '_') && name > 0;
        for (size_t i = 0; ok && i < name; i++)
            ok = isalnum((unsigned char)tok[i]) || tok[i] == '_';
        if (!ok || k->n_defines == KERN_MAX_FLAGS) {
            err_set(err, "%s: defines: '%s': %s", where, tok,
                    ok ? "more than 16 macros" : "expected NAME or NAME=VALUE, NAME a C identifier");
            return -1;
        }
        k->defines[k->n_defines++] = xstrdup(tok);
    }
    return 0;
}
