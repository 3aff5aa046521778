/* SPDX-License-Identifier: MIT */
/* custom_expr.c: a custom kernel's sizes on a case (custom.h): which cases it takes, the
 * expressions its buffer lengths, init ranges and grid are written in (parsed once against its
 * sizes into postfix, evaluated per case with every step checked for overflow), and whether two
 * kernels need the same data. */
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "custom.h"
#include "manifest.h"

struct cus_parser {
    const char *p, *text;
    const struct cus_desc *d;
    struct cus_expr *e;
    struct hb_err *err;
};

static int cus_push(struct cus_parser *ps, struct cus_tok t)
{
    if (ps->e->n == CUS_MAX_TOKENS) {
        err_set(ps->err, "'%s' is longer than %d terms", ps->text, CUS_MAX_TOKENS);
        return -1;
    }
    ps->e->t[ps->e->n++] = t;
    return 0;
}

static void cus_skip(struct cus_parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int cus_sum(struct cus_parser *ps);

/* A number, a size name, a parenthesised sum, or minus one of them. */
static int cus_factor(struct cus_parser *ps)
{
    cus_skip(ps);
    const char *s = ps->p;
    if (*s == '-') { /* 0 - the factor */
        ps->p++;
        return cus_push(ps, (struct cus_tok){'n', -1, 0}) || cus_factor(ps) ||
               cus_push(ps, (struct cus_tok){'-', -1, 0});
    }
    if (*s == '(') {
        ps->p++;
        if (cus_sum(ps))
            return -1;
        cus_skip(ps);
        if (*ps->p != ')')
            return err_set(ps->err, "'%s': a '(' without its ')'", ps->text), -1;
        ps->p++;
        return 0;
    }
    if (isdigit((unsigned char)*s)) {
        long v = 0;
        for (; isdigit((unsigned char)*ps->p); ps->p++)
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v))
                return err_set(ps->err, "'%s': a number past 2^63", ps->text), -1;
        return cus_push(ps, (struct cus_tok){'n', -1, v});
    }
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    for (int i = 0; n && i < ps->d->n_sizes; i++)
        if (strlen(ps->d->sizes[i]) == n && !strncmp(ps->d->sizes[i], s, n)) {
            ps->p += n;
            return cus_push(ps, (struct cus_tok){'v', (signed char)i, 0});
        }
    if (n)
        return err_set(ps->err, "'%s': '%.*s' is not one of the kernel's sizes", ps->text, (int)n, s), -1;
    return err_set(ps->err, "'%s': expected a number, a size or '(' at '%s'", ps->text, s), -1;
}

static int cus_product(struct cus_parser *ps)
{
    if (cus_factor(ps))
        return -1;
    for (;;) {
        cus_skip(ps);
        char op = *ps->p;
        if (op != '*' && op != '/')
            return 0;
        ps->p++;
        if (cus_factor(ps) || cus_push(ps, (struct cus_tok){op, -1, 0}))
            return -1;
    }
}

static int cus_sum(struct cus_parser *ps)
{
    if (cus_product(ps))
        return -1;
    for (;;) {
        cus_skip(ps);
        char op = *ps->p;
        if (op != '+' && op != '-')
            return 0;
        ps->p++;
        if (cus_product(ps) || cus_push(ps, (struct cus_tok){op, -1, 0}))
            return -1;
    }
}

int cus_expr_parse(const char *text, const struct cus_desc *d, struct cus_expr *e, struct hb_err *err)
{
    memset(e, 0, sizeof *e);
    e->rows = e->cols = -1;
    struct cus_parser ps = {text, text, d, e, err};
    if (cus_sum(&ps))
        return -1;
    cus_skip(&ps);
    if (*ps.p)
        return err_set(err, "'%s': unexpected '%s'", text, ps.p), -1;
    /* SIZE*SIZE is a matrix (heat maps fold it so); any other length is a list. */
    if (e->n == 3 && e->t[0].op == 'v' && e->t[1].op == 'v' && e->t[2].op == '*')
        e->rows = e->t[0].var, e->cols = e->t[1].var;
    return 0;
}

/* a / b rounded up (towards +infinity), as a grid's N/16. */
static long cus_div_up(long a, long b)
{
    long q = a / b;
    return q + (a % b != 0 && (a < 0) == (b < 0));
}

/* One step of an evaluation: a op b into *r; 1 on 64-bit overflow. b is not 0 for '/'. */
static int cus_apply(char op, long a, long b, long *r)
{
    switch (op) {
    case '+': return __builtin_add_overflow(a, b, r);
    case '-': return __builtin_sub_overflow(a, b, r);
    case '*': return __builtin_mul_overflow(a, b, r);
    default: return a == LONG_MIN && b == -1 ? 1 : (*r = cus_div_up(a, b), 0);
    }
}

int cus_expr_eval(const struct cus_expr *e, const long *sizes, long *out, struct hb_err *err)
{
    long st[CUS_MAX_TOKENS];
    int n = 0;
    for (int i = 0; i < e->n; i++) {
        const struct cus_tok *t = &e->t[i];
        if (t->op == 'n' || t->op == 'v') {
            st[n++] = t->op == 'n' ? t->value : sizes[t->var];
            continue;
        }
        long b = st[--n], a = st[--n], r = 0;
        if (t->op == '/' && b == 0)
            return err_set(err, "division by zero"), -1;
        if (cus_apply(t->op, a, b, &r))
            return err_set(err, "overflows 64 bits"), -1;
        st[n++] = r;
    }
    *out = n ? st[0] : 0;
    return 0;
}

int cus_expr_const(const struct cus_expr *e, int *constant, long *value, struct hb_err *err)
{
    long st[CUS_MAX_TOKENS];
    int known[CUS_MAX_TOKENS], n = 0;
    for (int i = 0; i < e->n; i++) {
        const struct cus_tok *t = &e->t[i];
        if (t->op == 'n' || t->op == 'v') {
            known[n] = t->op == 'n', st[n++] = t->value;
            continue;
        }
        n -= 2;
        long a = st[n], b = st[n + 1];
        if (t->op == '/' && known[n + 1] && b == 0)
            return err_set(err, "divides by 0 whatever the case"), -1;
        known[n] = known[n] && known[n + 1];
        if (known[n] && cus_apply(t->op, a, b, &st[n]))
            return err_set(err, "overflows 64 bits whatever the case"), -1;
        n++;
    }
    *constant = n && known[0], *value = n ? st[0] : 0;
    return 0;
}

int cus_takes_case(const struct cus_desc *d, const struct hb_case *c)
{
    if (c->n_sizes != d->n_sizes)
        return 0;
    for (int i = 0; i < d->n_sizes; i++) {
        int found = 0;
        for (int j = 0; j < c->n_sizes; j++)
            found |= !strcmp(c->sizes[j].name, d->sizes[i]);
        if (!found)
            return 0;
    }
    return 1;
}

void cus_case_sizes(const struct cus_desc *d, const struct hb_case *c, long out[CUS_MAX_SIZES])
{
    for (int i = 0; i < d->n_sizes; i++) {
        out[i] = 0;
        for (int j = 0; j < c->n_sizes; j++)
            if (!strcmp(c->sizes[j].name, d->sizes[i]))
                out[i] = c->sizes[j].value;
    }
}

int cus_grid(const struct cus_desc *d, const struct hb_case *c, unsigned grid[3], struct hb_err *err)
{
    long sizes[CUS_MAX_SIZES], v;
    cus_case_sizes(d, c, sizes);
    for (int i = 0; i < 3; i++) {
        struct hb_err why = {{0}};
        if (cus_expr_eval(&d->grid[i], sizes, &v, &why))
            return err_set(err, "%s:%d: grid dimension %d for case %s: %s", d->file, d->grid_line, i, c->name, why.msg),
                   -1;
        /* A zero dimension is not launched (testbed.c); a negative one is a mistake. */
        if (v < 0 || v > CUS_MAX_ELEMS)
            return err_set(err, "%s:%d: grid dimension %d for case %s is %ld blocks", d->file, d->grid_line, i, c->name,
                           v),
                   -1;
        grid[i] = (unsigned)v;
    }
    return 0;
}

int cus_same_data(const struct kern_desc *a, const struct kern_desc *b)
{
    const struct cus_desc *x = a->custom, *y = b->custom;
    if (!x || !y || x->n_sizes != y->n_sizes || x->n_bufs != y->n_bufs || x->n_scalars != y->n_scalars ||
        a->n_args != b->n_args || memcmp(a->args, b->args, (size_t)a->n_args * sizeof *a->args) ||
        x->oracle_k != y->oracle_k || !x->ref_fn != !y->ref_fn ||
        (x->ref_fn && (strcmp(x->ref_source, y->ref_source) || strcmp(x->ref_fn, y->ref_fn))))
        return 0;
    for (int i = 0; i < x->n_sizes; i++)
        if (strcmp(x->sizes[i], y->sizes[i]))
            return 0;
    for (int i = 0; i < x->n_bufs; i++)
        if (strcmp(x->bufs[i].text, y->bufs[i].text))
            return 0;
    for (int i = 0; i < x->n_scalars; i++)
        if (strcmp(x->scalars[i].name, y->scalars[i].name) || x->scalars[i].type != y->scalars[i].type ||
            x->scalars[i].value != y->scalars[i].value)
            return 0;
    return 1;
}
