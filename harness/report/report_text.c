/* SPDX-License-Identifier: MIT */
/* report_text.c: what a person reads: one line per result as it arrives (with the command
 * that reruns a failure), and the table, failures and counts at the end. Every name passes
 * through rep_term, so a kernel or device name cannot send escape sequences to a terminal.
 * It decides nothing: verdicts and figures come from the records. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

void rep_term(FILE *out, const char *s)
{
    while (*s) {
        unsigned cp;
        size_t n = txt_next(s, &cp);
        if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
            fprintf(out, "\\x%02x", cp);
        else if (cp == TXT_REPLACEMENT && n == 1)
            fputs("\xef\xbf\xbd", out);
        else
            fwrite(s, 1, n, out);
        s += n;
    }
}

void rep_case_text(const struct rep_result *r, char *buf, size_t len)
{
    char sizes[160];
    op_get(r->op)->describe(r, sizes, sizeof sizes);
    txt_printf(buf, len, "%s %s seed %" PRIu64, sizes, r->dist, r->seed);
}

/* NaN results by where their bits say they came from (compare.c). */
static void nan_origins(FILE *m, const struct cmp_result *c)
{
    if (!c->nan_mismatch)
        return;
    fprintf(m, "; %ld NaN/Inf mismatches", c->nan_mismatch);
    if (!(c->nan_poison || c->nan_guard || c->nan_other))
        return;
    const char *sep = ": ";
    if (c->nan_poison)
        fprintf(m, "%s%ld NaN from the output poison (C read before it was written)", sep, c->nan_poison), sep = ", ";
    if (c->nan_guard)
        fprintf(m, "%s%ld NaN from the guard pattern (an input read past its end)", sep, c->nan_guard), sep = ", ";
    if (c->nan_other)
        fprintf(m, "%s%ld other NaN", sep, c->nan_other);
}

static void describe_figures(FILE *m, const struct rep_result *r)
{
    const struct cmp_result *c = &r->cmp;
    const struct op_desc *op = op_get(r->op);
    fprintf(m, "; %ld/%ld %s bad", c->bad, c->elements, op->unit);
    nan_origins(m, c);
    if (c->unwritten)
        fprintf(m, "; %ld never written (still the poison)", c->unwritten);
    if (c->overflowed)
        fprintf(m, "; %ld overflowed where an fp32 order may", c->overflowed);
    /* A ratio of 0 next to NaN or unwritten elements says nothing: those are counted above. */
    long figured = c->nan_mismatch + c->unwritten + c->overflowed;
    if (c->max_ratio > 0 || !figured)
        fprintf(m, "; max ratio %.3g = %.3g x its threshold %.3g, max ulp %" PRIu64, c->max_ratio,
                c->threshold > 0 ? c->max_ratio / c->threshold : 0.0, c->threshold, c->max_ulp);
    if (op->has_total && !c->no_total)
        fprintf(m, "; sum off by %.3g%%", 100.0 * c->total_rel_err);
    if (c->first_i >= 0) {
        char element[64];
        op->name_element(c->first_i, c->first_j, element, sizeof element);
        fprintf(m, "; first bad %s%s: ", c->first_buffer, element);
        if (c->first_values[0])
            fputs(c->first_values, m);
        else
            fprintf(m, "expected %.9g got %.9g", c->first_expected, (double)c->first_got);
    }
}

void rep_describe(const struct rep_result *r, char *buf, size_t len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    if (!m) {
        txt_copy(buf, len, r->why);
        return;
    }
    fputs(r->why, m);
    if (!r->group_row && r->cmp.elements)
        describe_figures(m, r);
    if (r->cmp.oob_buffer >= 0)
        fprintf(m, "; argument %ld written outside its elements (guard band or row padding) at byte offset %ld",
                r->cmp.oob_buffer, r->cmp.oob_offset);
    fclose(m);
    txt_copy(buf, len, text);
    free(text);
}

void rep_print_line(FILE *out, const struct rep_result *r, const struct run_header *h)
{
    char text[4096];
    fprintf(out, "  %-7s ", verdict_name(r->verdict));
    rep_result_id(r, text, sizeof text);
    rep_term(out, text);
    fputs(" (", out);
    rep_term(out, r->device);
    fputc(')', out);
    if (!r->group_row) {
        rep_case_text(r, text, sizeof text);
        fputs(" [", out);
        rep_term(out, text);
        fputc(']', out);
    }
    fputs(": ", out);
    rep_describe(r, text, sizeof text);
    rep_term(out, text);
    fputc('\n', out);
    if (verdict_fails_run(r->verdict)) {
        char *cmd = rep_reproducer_text(r, h);
        fputs("          rerun: ", out);
        rep_term(out, cmd);
        fputc('\n', out);
        free(cmd);
    }
}

int rep_same_group(const struct rep_result *a, const struct rep_result *b)
{
    return !strcmp(a->lang, b->lang) && !strcmp(a->kernel, b->kernel) && !strcmp(a->backend, b->backend) &&
           a->device_index == b->device_index && !strcmp(a->device, b->device) && a->width == b->width;
}

static void group_add(struct rep_group *g, const struct rep_result *r)
{
    g->counts[r->verdict]++;
    double margin = r->cmp.threshold > 0 ? r->cmp.max_ratio / r->cmp.threshold : 0;
    if (margin > g->worst_margin)
        g->worst_margin = margin;
    if (r->cmp.max_ulp > g->worst_ulp)
        g->worst_ulp = r->cmp.max_ulp;
    if (r->cmp.total_rel_err > g->worst_sum)
        g->worst_sum = r->cmp.total_rel_err;
}

int rep_groups(const struct rep_sink *s, struct rep_group **out)
{
    struct rep_group *groups = xcalloc((size_t)s->n + 1, sizeof *groups);
    char *done = xcalloc((size_t)s->n + 1, 1);
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        if (done[i])
            continue;
        const struct rep_result *k = &s->all[i];
        for (int j = i; j < s->n; j++) {
            const struct rep_result *r = &s->all[j];
            if (done[j] || strcmp(k->lang, r->lang) || strcmp(k->kernel, r->kernel))
                continue;
            struct rep_group *g = &groups[n++];
            g->first = r;
            g->new_kernel = j == i;
            for (int m = j; m < s->n; m++)
                if (!done[m] && rep_same_group(r, &s->all[m])) {
                    done[m] = 1;
                    group_add(g, &s->all[m]);
                }
        }
    }
    free(done);
    *out = groups;
    return n;
}

static void summary_table(FILE *out, const struct rep_sink *s)
{
    fputs("\nResults by kernel (per backend, device and width: verdict counts, worst figures)\n", out);
    struct rep_group *groups;
    int n = rep_groups(s, &groups);
    for (int i = 0; i < n; i++) {
        const struct rep_group *g = &groups[i];
        const struct rep_result *k = g->first;
        if (g->new_kernel) {
            rep_term(out, k->lang);
            fputc('/', out);
            rep_term(out, k->kernel);
            fputc('\n', out);
        }
        char dev[64];
        txt_copy(dev, 41, k->device);
        fprintf(out, "  %-7s %d ", k->backend, k->device_index);
        rep_term(out, dev);
        fprintf(out, "%*s w%-3d", (int)(40 - strlen(dev)), "", k->width);
        for (int v = 0; v < V_COUNT; v++)
            if (g->counts[v])
                fprintf(out, " %d %s", g->counts[v], verdict_name((enum hb_verdict)v));
        fprintf(out, " | worst ratio %.3g of its threshold, max ulp %" PRIu64, g->worst_margin, g->worst_ulp);
        if (op_get(k->op)->has_total)
            fprintf(out, ", worst sum error %.3g%%", 100.0 * g->worst_sum);
        fputc('\n', out);
    }
    free(groups);
}

void rep_print_summary(FILE *out, const struct rep_sink *s)
{
    summary_table(out, s);
    int failing = 0;
    for (int i = 0; i < s->n; i++)
        failing |= verdict_fails_run(s->all[i].verdict);
    if (failing) {
        fputs("\nFailures\n", out);
        for (int i = 0; i < s->n; i++)
            if (verdict_fails_run(s->all[i].verdict))
                rep_print_line(out, &s->all[i], &s->hdr);
    }
    fputc('\n', out);
    for (int v = 0; v < V_COUNT; v++)
        fprintf(out, "%s%s %d", v ? ", " : "", verdict_name((enum hb_verdict)v), s->counts[v]);
    fputc('\n', out);
    int passed = s->counts[V_PASS] + s->counts[V_SUSPECT] + s->counts[V_XFAIL];
    int failed = s->counts[V_FAIL] + s->counts[V_XPASS] + s->counts[V_ERROR];
    fprintf(out, "%d passed, %d failed, %d skipped; %d ran\n", passed, failed, s->counts[V_SKIP], rep_ran(s));
}

int rep_ran(const struct rep_sink *s)
{
    int ran = 0;
    for (int i = 0; i < s->n; i++)
        ran += !s->all[i].group_row && s->all[i].verdict != V_SKIP;
    return ran;
}
