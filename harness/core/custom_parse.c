/* SPDX-License-Identifier: MIT */
/* custom_parse.c: a custom kernel's own manifest keys (kernels/README.md): sizes, buffers
 * (name, type, role, length, init), scalars, grid expressions, the reference and the
 * tolerance, into a cus_desc with the kernel's parameter vocabulary. Every error names
 * file:line. The generic keys (source, entry, block, args...) stay manifest_parse.c's. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "custom.h"

const char *const cus_key_names[CUS_KEYS] = {"sizes", "buffers", "scalars", "reference", "tolerance", "oracle"};

struct cus_ctx {
    struct cus_desc *d;
    char where[300];
    struct hb_err *err;
};

static void cus_where(struct cus_ctx *x, const char *path, int line)
{
    snprintf(x->where, sizeof x->where, "%s:%d", path, line);
}

/* A C identifier of at most 15 bytes, not already a buffer, size or scalar of the kernel. */
static int cus_name(struct cus_ctx *x, const char *what, const char *s, char out[CUS_MAX_NAME])
{
    int ok = (isalpha((unsigned char)s[0]) || s[0] == '_') && strlen(s) < CUS_MAX_NAME;
    for (const char *p = s; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok)
        return err_set(x->err, "%s: %s '%s': expected a C name of at most %d characters", x->where, what, s,
                       CUS_MAX_NAME - 1),
               -1;
    const struct cus_desc *d = x->d;
    int dup = 0;
    for (int i = 0; i < d->n_sizes; i++)
        dup |= !strcmp(d->sizes[i], s);
    for (int i = 0; i < d->n_bufs; i++)
        dup |= !strcmp(d->bufs[i].name, s);
    for (int i = 0; i < d->n_scalars; i++)
        dup |= !strcmp(d->scalars[i].name, s);
    if (dup)
        return err_set(x->err, "%s: %s '%s': the name is already the kernel's", x->where, what, s), -1;
    snprintf(out, CUS_MAX_NAME, "%s", s);
    return 0;
}

/* An expression of the kernel's sizes, its errors prefixed with where and what it is: what
 * it cannot do on any case (divide by a constant 0) is refused here, not on every case. */
static int cus_expr_at(struct cus_ctx *x, const char *what, const char *text, struct cus_expr *e)
{
    struct hb_err why = {{0}};
    int constant;
    long value;
    if (cus_expr_parse(text, x->d, e, &why))
        return err_set(x->err, "%s: %s: %s", x->where, what, why.msg), -1;
    if (cus_expr_const(e, &constant, &value, &why))
        return err_set(x->err, "%s: %s %s %s", x->where, what, text, why.msg), -1;
    return 0;
}

/* A constant expression's value outside [lo, hi]: refused here, with what it is. */
static int cus_const_within(struct cus_ctx *x, const char *what, const char *text, const struct cus_expr *e, long lo,
                            long hi, const char *unit)
{
    int constant;
    long v;
    struct hb_err why = {{0}};
    cus_expr_const(e, &constant, &v, &why); /* no error: cus_expr_at checked it */
    if (!constant || (v >= lo && v <= hi))
        return 0;
    return err_set(x->err, "%s: %s %s is %ld %s (%ld to %ld)", x->where, what, text, v, unit, lo, hi), -1;
}

/* An init range whose ends are constants must hold a value: LO < HI (values come from [LO, HI)). */
static int cus_range_holds(struct cus_ctx *x, const struct cus_buffer *b, char **w)
{
    int lo_const, hi_const;
    long lo, hi;
    struct hb_err why = {{0}};
    cus_expr_const(&b->lo, &lo_const, &lo, &why);
    cus_expr_const(&b->hi, &hi_const, &hi, &why);
    if (!lo_const || !hi_const || lo < hi)
        return 0;
    return err_set(x->err, "%s: buffer %s: range %s %s is empty (values come from [LO, HI): LO < HI)", x->where,
                   b->name, w[1], w[2]),
           -1;
}

static int cus_sizes(struct cus_ctx *x, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        if (x->d->n_sizes == CUS_MAX_SIZES)
            return err_set(x->err, "%s: sizes: more than %d", x->where, CUS_MAX_SIZES), -1;
        if (cus_name(x, "size", w, x->d->sizes[x->d->n_sizes]))
            return -1;
        x->d->n_sizes++;
    }
    return 0;
}

/* `zero`, `iota` or `range LO HI` after a buffer's length. */
static int cus_init(struct cus_ctx *x, struct cus_buffer *b, char **w, int n)
{
    if (!n)
        return 0;
    if (b->role != CUS_IN && b->role != CUS_INOUT)
        return err_set(x->err,
                       "%s: buffer %s: only in and inout buffers take an init (out starts as poison, scratch "
                       "as zeros)",
                       x->where, b->name),
               -1;
    b->init = !strcmp(w[0], "zero") ? CUS_INIT_ZERO : !strcmp(w[0], "iota") ? CUS_INIT_IOTA : CUS_INIT_RANGE;
    int want = b->init == CUS_INIT_RANGE ? 3 : 1;
    if ((b->init == CUS_INIT_RANGE && strcmp(w[0], "range")) || n != want)
        return err_set(x->err, "%s: buffer %s: init is zero, iota or range LO HI", x->where, b->name), -1;
    char what[64];
    snprintf(what, sizeof what, "buffer %s: range", b->name);
    if (b->init == CUS_INIT_RANGE &&
        (cus_expr_at(x, what, w[1], &b->lo) || cus_expr_at(x, what, w[2], &b->hi) || cus_range_holds(x, b, w)))
        return -1;
    return 0;
}

/* name type role length [init]: "x f32 in rows*cols", "h u32 inout bins zero". */
static int cus_buffer(struct cus_ctx *x, char *decl)
{
    char *w[8];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(decl, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 8)
            w[n++] = t;
        else
            return err_set(x->err, "%s: buffer %s: too many words", x->where, w[0]), -1;
    if (n < 4)
        return err_set(x->err, "%s: buffers: '%s': expected name type role length [init]", x->where, n ? w[0] : ""), -1;
    struct cus_desc *d = x->d;
    if (d->n_bufs == HB_MAX_BUF_ARGS)
        return err_set(x->err, "%s: buffers: more than %d", x->where, HB_MAX_BUF_ARGS), -1;
    struct cus_buffer *b = &d->bufs[d->n_bufs];
    memset(b, 0, sizeof *b);
    if (cus_name(x, "buffer", w[0], b->name))
        return -1;
    if (ty_parse(w[1], &b->type))
        return err_set(x->err, "%s: buffer %s: type '%s' (%s)", x->where, w[0], w[1], ty_names()), -1;
    static const char *const roles[] = {"in", "out", "inout", "scratch"};
    b->role = (enum cus_role) - 1;
    for (int r = 0; r < 4; r++)
        if (!strcmp(w[2], roles[r]))
            b->role = (enum cus_role)r;
    if ((int)b->role < 0)
        return err_set(x->err, "%s: buffer %s: role '%s' (in, out, inout, scratch)", x->where, w[0], w[2]), -1;
    char what[64];
    snprintf(what, sizeof what, "buffer %s: length", b->name);
    if (cus_expr_at(x, what, w[3], &b->len) || cus_const_within(x, what, w[3], &b->len, 0, CUS_MAX_ELEMS, "elements") ||
        cus_init(x, b, w + 4, n - 4))
        return -1;
    for (int i = 0; i < n; i++)
        snprintf(b->text + strlen(b->text), sizeof b->text - strlen(b->text), "%s%s", i ? " " : "", w[i]);
    d->n_bufs++;
    return 0;
}

static int cus_buffers(struct cus_ctx *x, const char *text)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *decl = strtok_r(buf, ";", &save); decl; decl = strtok_r(NULL, ";", &save))
        if (*str_trim(decl) && cus_buffer(x, str_trim(decl)))
            return -1;
    int outputs = 0;
    for (int i = 0; i < x->d->n_bufs; i++)
        outputs += x->d->bufs[i].role == CUS_OUT || x->d->bufs[i].role == CUS_INOUT;
    if (!outputs)
        return err_set(x->err, "%s: buffers: no out or inout buffer: nothing to judge", x->where), -1;
    return 0;
}

/* name type value: "eps f32 1e-5". The launch carries floats as floats and integers as 32
 * bits, so an f64 scalar is the float nearest its value (the reference gets the same), which
 * must be finite and, for a value that is not 0, not 0 (1e40 would be inf, 1e-50 zero), and an
 * integer must fit 32 bits (u32: its bit pattern). */
static int cus_scalar(struct cus_ctx *x, char *decl)
{
    char *name = strtok(decl, " \t"), *type = strtok(NULL, " \t"), *val = strtok(NULL, " \t");
    struct cus_desc *d = x->d;
    if (!name || !type || !val || strtok(NULL, " \t"))
        return err_set(x->err, "%s: scalars: expected name type value", x->where), -1;
    if (d->n_scalars == CUS_MAX_SCALARS)
        return err_set(x->err, "%s: scalars: more than %d", x->where, CUS_MAX_SCALARS), -1;
    struct cus_scalar *s = &d->scalars[d->n_scalars];
    if (cus_name(x, "scalar", name, s->name))
        return -1;
    if (ty_parse(type, &s->type) || s->type == TY_F16 || s->type == TY_BF16 || s->type == TY_U8)
        return err_set(x->err, "%s: scalar %s: type '%s' (f32 f64 i32 u32 i64 u64)", x->where, name, type), -1;
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    int is_float = ty_get(s->type)->is_float;
    double lo = s->type == TY_U32 || s->type == TY_U64 ? 0 : -0x1p31;
    double hi = s->type == TY_U32 ? 0x1p32 : 0x1p31;
    if (*end || errno || !isfinite(v) || (!is_float && (v != trunc(v) || v < lo || v >= hi)))
        return err_set(x->err, "%s: scalar %s = %s: expected %s", x->where, name, val,
                       is_float ? "a finite number" : "a whole number that fits 32 bits (the launch passes them so)"),
               -1;
    if (is_float && (!isfinite((float)v) || (v != 0 && (float)v == 0)))
        return err_set(x->err,
                       "%s: scalar %s = %s: %s as a float, which the launch passes (a float's magnitude is "
                       "%g to %g)",
                       x->where, name, val, isfinite((float)v) ? "0" : "infinite", (double)FLT_TRUE_MIN,
                       (double)FLT_MAX),
               -1;
    s->value = is_float ? (double)(float)v : v;
    d->n_scalars++;
    return 0;
}

static int cus_scalars(struct cus_ctx *x, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *decl = strtok_r(buf, ";", &save); decl; decl = strtok_r(NULL, ";", &save))
        if (*str_trim(decl) && cus_scalar(x, str_trim(decl)))
            return -1;
    return 0;
}

/* exact | ulp N | rel R [abs A] | abs A [rel R]. */
static int cus_tolerance(struct cus_ctx *x, const char *text)
{
    struct cus_desc *d = x->d;
    char buf[256], *w[4];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save), n++)
        if (n < 4)
            w[n] = t;
    d->tol = CUS_TOL_EXACT, d->ulp = d->rel = d->abs = 0;
    long u;
    if (n == 1 && !strcmp(w[0], "exact"))
        return 0;
    if (n == 2 && !strcmp(w[0], "ulp") && !parse_long(w[1], &u) && u >= 0)
        return d->tol = CUS_TOL_ULP, d->ulp = (double)u, 0;
    int ok = n == 2 || n == 4, seen_rel = 0, seen_abs = 0;
    for (int i = 0; ok && i < n; i += 2) {
        char *end;
        double v = strtod(w[i + 1], &end);
        int rel = !strcmp(w[i], "rel"), abs = !strcmp(w[i], "abs");
        ok = ((rel && !seen_rel) || (abs && !seen_abs)) && end != w[i + 1] && !*end && isfinite(v) && v >= 0;
        seen_rel |= rel, seen_abs |= abs;
        *(rel ? &d->rel : &d->abs) = v;
    }
    if (ok)
        return d->tol = CUS_TOL_REL, 0;
    return err_set(x->err, "%s: tolerance = %s: expected exact, ulp N, or rel R abs A", x->where, text), -1;
}

/* FILE FUNCTION: a C file (relative to the manifest) and the function in it that takes the
 * kernel's args. */
static int cus_ref_key(struct cus_ctx *x, const char *text, const char *dir)
{
    char buf[1024], *file, *fn, *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    file = strtok_r(buf, " \t", &save), fn = strtok_r(NULL, " \t", &save);
    char name[CUS_MAX_NAME * 4];
    if (!file || !fn || strtok_r(NULL, " \t", &save) || strlen(fn) >= sizeof name)
        return err_set(x->err, "%s: reference = %s: expected a C file and a function name", x->where, text), -1;
    for (const char *p = fn; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return err_set(x->err, "%s: reference function '%s' is not a C name", x->where, fn), -1;
    char *joined = path_join(dir, file), *real = realpath(joined, NULL);
    if (!real) {
        err_set(x->err, "%s: reference %s: %s", x->where, joined, strerror(errno));
        free(joined);
        return -1;
    }
    free(joined);
    /* As every input the user names (lib/infile.h): a FIFO would hang the reference's build,
     * a device never ends, a folder is no source. */
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        err_set(x->err, "%s: reference %s: not a regular file", x->where, real);
        free(real);
        return -1;
    }
    x->d->ref_source = real, x->d->ref_fn = xstrdup(fn);
    return 0;
}

/* [LANG/]KERNEL: another manifest kernel, found once every manifest is read (cus_resolve). */
static int cus_oracle_key(struct cus_ctx *x, const char *text, int line)
{
    for (const char *p = text; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-./", *p))
            return err_set(x->err, "%s: oracle = %s: expected a kernel's name (LANG/NAME or NAME)", x->where, text), -1;
    x->d->oracle = xstrdup(text), x->d->oracle_line = line;
    return 0;
}

/* The kernel's parameter words: its buffers, its sizes and integer scalars (the launch's
 * integers, in that order), its float scalars (the launch's floats). */
static int cus_params(struct cus_ctx *x)
{
    struct cus_desc *d = x->d;
    int n = 0, ints = 0, floats = 0;
    for (int i = 0; i < d->n_bufs; i++, n++)
        snprintf(d->names[n], CUS_MAX_NAME, "%s", d->bufs[i].name),
            d->params[n] = (struct op_param){d->names[n], HB_PARAM_BUF, (unsigned char)i};
    for (int i = 0; i < d->n_sizes; i++, n++)
        snprintf(d->names[n], CUS_MAX_NAME, "%s", d->sizes[i]),
            d->params[n] = (struct op_param){d->names[n], HB_PARAM_I32, (unsigned char)ints++};
    for (int i = 0; i < d->n_scalars; i++, n++) {
        enum hb_type t = d->scalars[i].type;
        int wide = t == TY_I64 || t == TY_U64, fl = ty_get(t)->is_float;
        snprintf(d->names[n], CUS_MAX_NAME, "%s", d->scalars[i].name);
        d->params[n] = (struct op_param){d->names[n],
                                         (unsigned char)(fl     ? HB_PARAM_F32
                                                         : wide ? HB_PARAM_I64
                                                                : HB_PARAM_I32),
                                         (unsigned char)(fl ? floats++ : ints++)};
    }
    d->params[n] = (struct op_param){NULL, 0, 0};
    if (ints > HB_MAX_INT_ARGS || floats > HB_MAX_FLOAT_ARGS)
        return err_set(x->err, "%s: %d sizes and integer scalars, %d float scalars: a launch carries at most %d and %d",
                       x->where, ints, floats, HB_MAX_INT_ARGS, HB_MAX_FLOAT_ARGS),
               -1;
    return 0;
}

static int cus_grid_parse(struct cus_ctx *x, const char *text)
{
    char buf[1024];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", text);
    for (int i = 0; i < 3; i++)
        cus_expr_parse("1", x->d, &x->d->grid[i], x->err);
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == 3)
            return err_set(x->err, "%s: grid = %s: at most 3 dimensions", x->where, text), -1;
        if (cus_expr_at(x, "grid", t, &x->d->grid[n]) ||
            cus_const_within(x, "grid", t, &x->d->grid[n], 0, CUS_MAX_ELEMS, "blocks"))
            return -1;
        n++;
    }
    return 0;
}

/* One key's text through its parser, errors prefixed with its line. */
static int cus_key(struct cus_ctx *x, const struct cus_keys *keys, int key, const char *path, const char *dir)
{
    cus_where(x, path, keys->line[key]);
    const char *t = keys->text[key];
    switch (key) {
    case CUS_KEY_SIZES: return cus_sizes(x, t);
    case CUS_KEY_SCALARS: return cus_scalars(x, t);
    case CUS_KEY_BUFFERS: return cus_buffers(x, t);
    case CUS_KEY_REFERENCE: return cus_ref_key(x, t, dir);
    case CUS_KEY_ORACLE: return cus_oracle_key(x, t, keys->line[key]);
    default: return cus_tolerance(x, t);
    }
}

struct cus_desc *cus_parse(const struct cus_keys *keys, const char *path, const char *dir, struct hb_err *err)
{
    struct cus_ctx x = {xcalloc(1, sizeof *x.d), "", err};
    /* Sizes first: lengths and the grid are written in them; scalars before buffers, so their
     * names are taken. */
    static const int order[CUS_KEYS] = {CUS_KEY_SIZES,     CUS_KEY_SCALARS,   CUS_KEY_BUFFERS,
                                        CUS_KEY_REFERENCE, CUS_KEY_TOLERANCE, CUS_KEY_ORACLE};
    int rc = 0, judged = !!keys->text[CUS_KEY_REFERENCE] + !!keys->text[CUS_KEY_ORACLE];
    for (int i = 0; i < CUS_KEYS && !rc; i++) {
        int key = order[i];
        if (keys->text[key])
            rc = cus_key(&x, keys, key, path, dir);
        else if (key == CUS_KEY_SIZES || key == CUS_KEY_BUFFERS) {
            err_set(err, "%s:%d: custom kernel [%s] has no '%s'", path, keys->kernel_line, keys->kernel,
                    cus_key_names[key]);
            rc = -1;
        }
    }
    if (!rc && judged != 1) {
        err_set(err, "%s:%d: custom kernel [%s] %s", path, keys->kernel_line, keys->kernel,
                judged ? "has both a 'reference' and an 'oracle': one judges it"
                       : "has no 'reference' (a C function) or 'oracle' (another kernel)");
        rc = -1;
    }
    cus_where(&x, path, keys->grid_line);
    if (!rc)
        rc = cus_grid_parse(&x, keys->grid) || cus_params(&x);
    x.d->file = xstrdup(path), x.d->grid_line = keys->grid_line;
    for (int i = 0; i < x.d->n_bufs; i++)
        x.d->bufs[i].line = keys->line[CUS_KEY_BUFFERS];
    if (rc) {
        cus_free(x.d);
        return NULL;
    }
    return x.d;
}

void cus_free(struct cus_desc *d)
{
    if (!d)
        return;
    free(d->file);
    free(d->ref_source);
    free(d->ref_fn);
    free(d->oracle);
    free(d);
}
