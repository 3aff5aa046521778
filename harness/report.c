/* report.c: JSON lines, streaming JUnit XML, the per-failure lines and the final table.
 * JUnit stays valid after every record: the header carries fixed-width counts that are
 * rewritten in place, and the closing tags are rewritten after each test case. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

#define COUNT_WIDTH 8

void rep_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", out);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void rep_xml_string(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            /* XML 1.0 forbids most control characters even escaped. */
            fputc(ch < 0x20 && ch != '\n' && ch != '\t' ? '?' : ch, out);
        }
    }
}

static void json_num(FILE *out, const char *key, double v)
{
    /* JSON has no Inf or NaN: those become strings. */
    if (isfinite(v))
        fprintf(out, ",\"%s\":%.9g", key, v);
    else
        fprintf(out, ",\"%s\":\"%s\"", key, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

void rep_write_json(FILE *out, const struct rep_result *r)
{
    char classes[128];
    class_names(r->cmp.classes, classes, sizeof classes);
    fputs("{\"backend\":", out);
    rep_json_string(out, r->backend);
    fputs(",\"device\":", out);
    rep_json_string(out, r->device);
    fputs(",\"driver\":", out);
    rep_json_string(out, r->driver);
    fputs(",\"kernel\":", out);
    rep_json_string(out, r->kernel);
    fputs(",\"lang\":", out);
    rep_json_string(out, r->lang);
    fprintf(out, ",\"width\":%d,\"op\":\"%s\",\"case\":", r->width, op_name(r->op));
    rep_json_string(out, r->case_name);
    fprintf(out, ",\"verdict\":\"%s\",\"classes\":\"%s\",\"why\":", verdict_name(r->verdict), classes);
    rep_json_string(out, r->why);
    fprintf(out, ",\"M\":%ld,\"N\":%ld,\"K\":%ld,\"n\":%ld,\"dist\":\"%s\",\"seed\":%" PRIu64, r->M, r->N,
            r->K, r->n, r->dist, r->seed);
    /* Only what a kernel declared: rows of kernels with the op's ABI keep their fields. */
    if (r->scalars & CASE_ALPHA)
        json_num(out, "alpha", r->alpha);
    if (r->scalars & CASE_BETA)
        json_num(out, "beta", r->beta);
    if (r->col_major)
        fputs(",\"layout\":\"col\"", out);
    if (r->cmp.repeat_ulp)
        fprintf(out, ",\"repeat_ulp\":%" PRIu64, r->cmp.repeat_ulp);
    fprintf(out, ",\"elements\":%ld,\"bad\":%ld,\"nan_mismatch\":%ld,\"unwritten\":%ld", r->cmp.elements,
            r->cmp.bad, r->cmp.nan_mismatch, r->cmp.unwritten);
    json_num(out, "max_ratio", r->cmp.max_ratio);
    json_num(out, "threshold", r->cmp.threshold);
    fprintf(out, ",\"max_ulp\":%" PRIu64, r->cmp.max_ulp);
    if (r->cmp.first_i >= 0) {
        fprintf(out, ",\"first_bad\":{\"i\":%ld,\"j\":%ld", r->cmp.first_i, r->cmp.first_j);
        json_num(out, "expected", r->cmp.first_expected);
        json_num(out, "got", r->cmp.first_got);
        fputc('}', out);
    }
    if (op_get(r->op)->has_total)
        json_num(out, "total_rel_err", r->cmp.total_rel_err);
    if (r->cmp.oob_buffer >= 0)
        fprintf(out, ",\"oob\":{\"arg\":%ld,\"offset\":%ld}", r->cmp.oob_buffer, r->cmp.oob_offset);
    int any_heat = 0;
    for (int i = 0; i < CMP_HEAT * CMP_HEAT; i++)
        any_heat |= r->cmp.heat[i];
    if (any_heat) {
        /* Row-major CMP_HEAT x CMP_HEAT cells, two hex digits each. */
        fputs(",\"heat\":\"", out);
        for (int i = 0; i < CMP_HEAT * CMP_HEAT; i++)
            fprintf(out, "%02x", r->cmp.heat[i]);
        fputc('"', out);
    }
    fprintf(out, ",\"output_hash\":\"%016" PRIx64 "\"", r->output_hash);
    json_num(out, "kernel_ms", r->kernel_ms);
    json_num(out, "child_ms", r->child_ms);
    if (r->binary[0]) {
        fputs(",\"binary\":", out);
        rep_json_string(out, r->binary);
    }
    fprintf(out, ",\"threads\":%" PRIu64 ",\"group_row\":%d,\"note\":", r->threads, r->group_row);
    rep_json_string(out, r->note);
    fputs("}\n", out);
}

static const char junit_close[] = "</testsuite>\n</testsuites>\n";

static void junit_write_counts(struct rep_sink *s)
{
    long here = ftell(s->junit);
    fseek(s->junit, s->junit_counts_at, SEEK_SET);
    int total = 0;
    for (int v = 0; v < V_COUNT; v++)
        total += s->counts[v];
    fprintf(s->junit, "tests=\"%0*d\" failures=\"%0*d\" errors=\"%0*d\" skipped=\"%0*d\"", COUNT_WIDTH,
            total, COUNT_WIDTH, s->counts[V_FAIL] + s->counts[V_XPASS], COUNT_WIDTH, s->counts[V_ERROR],
            COUNT_WIDTH, s->counts[V_SKIP]);
    fseek(s->junit, here, SEEK_SET);
}

int rep_open(struct rep_sink *s, const char *json_path, const char *junit_path, struct hb_err *err)
{
    memset(s, 0, sizeof *s);
    if (json_path && !(s->json = fopen(json_path, "w"))) {
        err_set(err, "%s: cannot write: %s", json_path, strerror(errno));
        return -1;
    }
    if (junit_path) {
        if (!(s->junit = fopen(junit_path, "w+"))) {
            err_set(err, "%s: cannot write: %s", junit_path, strerror(errno));
            rep_close(s);
            return -1;
        }
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"harness\" ", s->junit);
        s->junit_counts_at = (int)ftell(s->junit);
        junit_write_counts(s);
        fseek(s->junit, 0, SEEK_END);
        fputs(">\n", s->junit);
        s->junit_tail = ftell(s->junit);
        fputs(junit_close, s->junit);
        fflush(s->junit);
    }
    return 0;
}

static void write_junit(struct rep_sink *s, const struct rep_result *r)
{
    FILE *f = s->junit;
    fseek(f, s->junit_tail, SEEK_SET);
    char cls[256], classes[128];
    snprintf(cls, sizeof cls, "%s.%s/%s.w%d", r->backend, r->lang, r->kernel, r->width);
    class_names(r->cmp.classes, classes, sizeof classes);
    fputs("  <testcase classname=\"", f);
    rep_xml_string(f, cls);
    fputs("\" name=\"", f);
    rep_xml_string(f, r->case_name);
    fprintf(f, "\" time=\"%.6f\">", r->child_ms / 1e3);
    const char *tag = r->verdict == V_ERROR ? "error"
                    : (r->verdict == V_FAIL || r->verdict == V_XPASS) ? "failure" : NULL;
    if (tag) {
        fprintf(f, "<%s message=\"%s: ", tag, verdict_name(r->verdict));
        rep_xml_string(f, r->why);
        fputs("\">device ", f);
        rep_xml_string(f, r->device);
        fprintf(f, "; %ld of %ld elements bad; max ratio %.4g (threshold %.4g); max ulp %" PRIu64, r->cmp.bad,
                r->cmp.elements, r->cmp.max_ratio, r->cmp.threshold, r->cmp.max_ulp);
        if (r->cmp.first_i >= 0)
            fprintf(f, "; first bad (%ld,%ld) expected %.9g got %.9g", r->cmp.first_i, r->cmp.first_j,
                    r->cmp.first_expected, r->cmp.first_got);
        fprintf(f, "</%s>", tag);
    } else if (r->verdict == V_SKIP) {
        fputs("<skipped message=\"", f);
        rep_xml_string(f, r->why);
        fputs("\"/>", f);
    } else if (r->verdict != V_PASS) {
        fprintf(f, "<system-out>%s: ", verdict_name(r->verdict));
        rep_xml_string(f, r->why);
        fputs("</system-out>", f);
    }
    fputs("</testcase>\n", f);
    s->junit_tail = ftell(f);
    fputs(junit_close, f);
    junit_write_counts(s);
    fflush(f);
}

void rep_add(struct rep_sink *s, const struct rep_result *r)
{
    s->counts[r->verdict]++;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        struct rep_result *grown = realloc(s->all, (size_t)s->cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "harness: out of memory\n");
            exit(2);
        }
        s->all = grown;
    }
    s->all[s->n++] = *r;
    if (s->json) {
        rep_write_json(s->json, r);
        fflush(s->json);
    }
    if (s->junit)
        write_junit(s, r);
}

static void describe(FILE *out, const struct rep_result *r)
{
    const struct cmp_result *c = &r->cmp;
    const struct op_desc *op = op_get(r->op);
    if (r->group_row || !c->elements) {
        fprintf(out, "%s", r->why);
        return;
    }
    fprintf(out, "%s; %ld/%ld %s bad", r->why, c->bad, c->elements, op->unit);
    if (c->nan_mismatch)
        fprintf(out, " (%ld NaN/Inf mismatches)", c->nan_mismatch);
    if (c->unwritten)
        fprintf(out, " (%ld unwritten)", c->unwritten);
    fprintf(out, "; max ratio %.3g (threshold %.3g), max ulp %" PRIu64, c->max_ratio, c->threshold, c->max_ulp);
    if (op->has_total)
        fprintf(out, "; sum off by %.3g%%", 100.0 * c->total_rel_err);
    if (c->first_i >= 0) {
        char element[64];
        op->name_element(c->first_i, c->first_j, element, sizeof element);
        fprintf(out, "; first bad %s: expected %.9g got %.9g", element, c->first_expected, c->first_got);
    }
    if (c->oob_buffer >= 0)
        fprintf(out, "; argument %ld written outside its elements (guard band or row padding) at byte offset %ld",
                c->oob_buffer, c->oob_offset);
}

void rep_print_line(FILE *out, const struct rep_result *r)
{
    fprintf(out, "  %-7s %s %s w%d %s/%s %s", verdict_name(r->verdict), r->backend, r->device, r->width, r->lang,
            r->kernel, r->case_name);
    if (!r->group_row) {
        char sizes[128];
        op_get(r->op)->describe(r, sizes, sizeof sizes);
        fprintf(out, " [%s %s seed %" PRIu64 "]", sizes, r->dist, r->seed);
    }
    fputs(": ", out);
    describe(out, r);
    fputc('\n', out);
}

static int same_kernel(const struct rep_result *a, const struct rep_result *b)
{
    return !strcmp(a->lang, b->lang) && !strcmp(a->kernel, b->kernel);
}

static int same_group(const struct rep_result *a, const struct rep_result *b)
{
    return same_kernel(a, b) && !strcmp(a->backend, b->backend) && !strcmp(a->device, b->device) &&
           a->width == b->width;
}

int rep_groups(const struct rep_sink *s, struct rep_group **out)
{
    struct rep_group *groups = xcalloc((size_t)s->n + 1, sizeof *groups);
    char *done = xcalloc((size_t)s->n + 1, 1);
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        if (done[i])
            continue;
        for (int j = i; j < s->n; j++) {
            if (done[j] || !same_kernel(&s->all[i], &s->all[j]))
                continue;
            struct rep_group *g = &groups[n++];
            g->first = &s->all[j];
            g->new_kernel = j == i;
            for (int m = j; m < s->n; m++) {
                const struct rep_result *r = &s->all[m];
                if (done[m] || !same_group(g->first, r))
                    continue;
                done[m] = 1;
                g->counts[r->verdict]++;
                if (r->cmp.max_ratio > g->worst_ratio)
                    g->worst_ratio = r->cmp.max_ratio;
                if (r->cmp.max_ulp > g->worst_ulp)
                    g->worst_ulp = r->cmp.max_ulp;
                if (r->cmp.total_rel_err > g->worst_sum)
                    g->worst_sum = r->cmp.total_rel_err;
            }
        }
    }
    free(done);
    *out = groups;
    return n;
}

void rep_print_summary(FILE *out, const struct rep_sink *s)
{
    fputs("\nResults by kernel (per backend, device and width: verdict counts, worst figures)\n", out);
    struct rep_group *groups;
    int n = rep_groups(s, &groups);
    for (int i = 0; i < n; i++) {
        const struct rep_group *g = &groups[i];
        if (g->new_kernel)
            fprintf(out, "%s/%s\n", g->first->lang, g->first->kernel);
        fprintf(out, "  %-7s %-40.40s w%-3d", g->first->backend, g->first->device, g->first->width);
        for (int v = 0; v < V_COUNT; v++)
            if (g->counts[v])
                fprintf(out, " %d %s", g->counts[v], verdict_name((enum hb_verdict)v));
        fprintf(out, " | max ratio %.3g, max ulp %" PRIu64, g->worst_ratio, g->worst_ulp);
        if (op_get(g->first->op)->has_total)
            fprintf(out, ", worst sum error %.3g%%", 100.0 * g->worst_sum);
        fputc('\n', out);
    }
    free(groups);
    int failing = 0;
    for (int i = 0; i < s->n; i++)
        failing |= verdict_fails_run(s->all[i].verdict);
    if (failing) {
        fputs("\nFailures\n", out);
        for (int i = 0; i < s->n; i++)
            if (verdict_fails_run(s->all[i].verdict))
                rep_print_line(out, &s->all[i]);
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

int rep_failed(const struct rep_sink *s)
{
    return s->counts[V_FAIL] + s->counts[V_XPASS] + s->counts[V_ERROR] > 0;
}

void rep_close(struct rep_sink *s)
{
    if (s->json)
        fclose(s->json);
    if (s->junit)
        fclose(s->junit);
    free(s->all);
    memset(s, 0, sizeof *s);
}
