/* html.c: the HTML page. Heat maps are drawn as SVG rectangles, one per heat cell, with only
 * as many rows and columns as the output has (a 15-row C gets 15 rows, not 32 with gaps), so
 * a tile-edge bug shows as stripes at a glance. Styling is inline CSS; the page needs
 * nothing else to display. It does not judge results: verdicts come from the records. */
#include "html.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HTML_CELL 9 /* pixels per heat cell: 32 cells make a 288-pixel map */

static const char *const verdict_color[V_COUNT] = {"#2e7d32", "#9e9d24", "#c62828", "#6a1b9a",
                                                   "#d84315", "#757575", "#ad1457"};

void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* Yellow at the threshold to red at 2^31 times it: the level is already logarithmic. */
static void level_color(unsigned level, char *buf, size_t len)
{
    if (level == CMP_HEAT_NAN) {
        snprintf(buf, len, "#7b1fa2");
    } else if (level == CMP_HEAT_UNWRITTEN) {
        snprintf(buf, len, "#8d8d8d");
    } else {
        double t = level >= 250 ? 1.0 : (level - 1) / 249.0;
        snprintf(buf, len, "#%02x%02x00", (unsigned)lround(255 - 75 * t), (unsigned)lround(225 * (1 - t)));
    }
}

static int fails(enum hb_verdict v) { return v == V_FAIL || v == V_XFAIL || v == V_XPASS || v == V_ERROR; }

/* Drawn grid: rows x cols cells, each mapped to a heat cell. SGEMM folds C's rows and columns
 * onto 32 each; a reduction lays its block partials out row by row. */
struct html_grid {
    long rows, cols, items; /* items: cells with data (a reduction's last row may be short) */
};

static struct html_grid grid_of(const struct rep_result *r)
{
    struct html_grid g;
    if (op_get(r->op)->matrix_output) {
        g.rows = r->M < CMP_HEAT ? r->M : CMP_HEAT;
        g.cols = r->N < CMP_HEAT ? r->N : CMP_HEAT;
        g.items = g.rows * g.cols;
    } else {
        long blocks = r->cmp.elements;
        g.items = blocks < CMP_HEAT * CMP_HEAT ? blocks : CMP_HEAT * CMP_HEAT;
        g.cols = g.items < CMP_HEAT ? g.items : CMP_HEAT;
        g.rows = (g.items + CMP_HEAT - 1) / CMP_HEAT;
    }
    return g;
}

static unsigned heat_at(const struct rep_result *r, long row, long col)
{
    long cell;
    if (op_get(r->op)->matrix_output) {
        long hr = r->M < CMP_HEAT ? row * CMP_HEAT / r->M : row;
        long hc = r->N < CMP_HEAT ? col * CMP_HEAT / r->N : col;
        cell = hr * CMP_HEAT + hc;
    } else {
        long d = row * CMP_HEAT + col, blocks = r->cmp.elements;
        cell = blocks < CMP_HEAT * CMP_HEAT ? d * CMP_HEAT * CMP_HEAT / blocks : d;
    }
    return r->cmp.heat[cell];
}

static void svg_map(FILE *out, const struct rep_result *r)
{
    struct html_grid g = grid_of(r);
    const int pad = 34; /* room for the axis labels */
    long w = g.cols * HTML_CELL, h = g.rows * HTML_CELL;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%ld\" height=\"%ld\" role=\"img\">", w + pad + 4,
            h + pad);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%ld\" height=\"%ld\" fill=\"#e8f0e8\" stroke=\"#555\"/>", pad,
            pad - 14, w, h);
    for (long row = 0; row < g.rows; row++)
        for (long col = 0; col < g.cols; col++) {
            if (row * g.cols + col >= g.items)
                break;
            unsigned level = heat_at(r, row, col);
            if (!level)
                continue;
            char color[16];
            level_color(level, color, sizeof color);
            fprintf(out, "<rect x=\"%ld\" y=\"%ld\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", pad + col * HTML_CELL,
                    pad - 14 + row * HTML_CELL, HTML_CELL, HTML_CELL, color);
        }
    /* Axis words say what a row and a column are, and the last index of each. */
    if (op_get(r->op)->matrix_output)
        fprintf(out,
                "<text x=\"%d\" y=\"12\" class=\"ax\">columns 0..%ld of C &#8594;</text>"
                "<text x=\"12\" y=\"%d\" class=\"ax\" transform=\"rotate(90 12 %d)\">rows 0..%ld &#8594;</text>",
                pad, r->N - 1, pad - 10, pad - 10, r->M - 1);
    else
        fprintf(out, "<text x=\"%d\" y=\"12\" class=\"ax\">block partials 0..%ld, row by row &#8594;</text>", pad,
                r->cmp.elements - 1);
    fputs("</svg>", out);
}

static void caption(FILE *out, const struct rep_result *r)
{
    const struct cmp_result *c = &r->cmp;
    fprintf(out, "<figcaption><b style=\"color:%s\">%s</b> <b>", verdict_color[r->verdict], verdict_name(r->verdict));
    html_text(out, r->lang);
    fputc('/', out);
    html_text(out, r->kernel);
    fputs("</b><br>", out);
    html_text(out, r->backend);
    fputs(", ", out);
    html_text(out, r->device);
    fprintf(out, ", width %d<br>case <b>", r->width);
    html_text(out, r->case_name);
    fputs("</b> ", out);
    char sizes[128];
    op_get(r->op)->describe(r, sizes, sizeof sizes);
    html_text(out, sizes);
    fputs(", ", out);
    html_text(out, r->dist);
    fprintf(out, ", seed %" PRIu64 "<br>", r->seed);
    if (c->elements) {
        fprintf(out, "%ld of %ld %s bad", c->bad, c->elements, op_get(r->op)->unit);
        if (c->nan_mismatch)
            fprintf(out, " (%ld NaN/Inf mismatches)", c->nan_mismatch);
        if (c->unwritten)
            fprintf(out, " (%ld unwritten)", c->unwritten);
        fprintf(out, "; max ratio %.4g (threshold %.4g), max ulp %" PRIu64 "<br>", c->max_ratio, c->threshold,
                c->max_ulp);
    }
    if (c->first_i >= 0) {
        char element[64];
        op_get(r->op)->name_element(c->first_i, c->first_j, element, sizeof element);
        fprintf(out, "first bad %s: expected %.9g, got %.9g<br>", element, c->first_expected, (double)c->first_got);
    }
    if (op_get(r->op)->has_total && c->elements)
        fprintf(out, "sum of partials off by %.4g%%<br>", 100.0 * c->total_rel_err);
    if (c->oob_buffer >= 0)
        fprintf(out, "guard band of argument %ld written at byte offset %ld<br>", c->oob_buffer, c->oob_offset);
    fputs("<i>", out);
    html_text(out, r->why);
    fputs("</i></figcaption>", out);
}

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<title>GPU kernel conformance report</title>\n<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}\n"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}h3{font-size:15px;margin:16px 0 4px}\n"
    "table{border-collapse:collapse;margin-bottom:8px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
    "th{background:#f2f2f2}td.n{text-align:right}tr.k th{background:#e3e9f3;padding-top:6px}tr.k span{font-weight:normal}\n"
    ".badge{display:inline-block;padding:3px 10px;margin:0 6px 6px 0;border-radius:4px;color:#fff;font-weight:bold}\n"
    ".maps{display:flex;flex-wrap:wrap;gap:18px}\n"
    "figure{margin:0;padding:10px;border:1px solid #ddd;border-radius:4px;max-width:420px}\n"
    "figcaption{font-size:12px;margin-top:6px;overflow-wrap:anywhere}\n"
    ".ax{font-size:10px;fill:#444}\n.legend .li{white-space:nowrap}.legend .sw{display:inline-block;width:14px;"
    "height:14px;vertical-align:middle;margin:0 4px 0 12px;border:1px solid #999}\n"
    "</style>\n</head>\n<body>\n";

static void counts_section(FILE *out, const struct rep_sink *s)
{
    fputs("<h1>GPU kernel conformance report</h1>\n<p>", out);
    for (int v = 0; v < V_COUNT; v++)
        fprintf(out, "<span class=\"badge\" style=\"background:%s\">%s %d</span>", verdict_color[v],
                verdict_name((enum hb_verdict)v), s->counts[v]);
    int passed = s->counts[V_PASS] + s->counts[V_SUSPECT] + s->counts[V_XFAIL];
    int failed = s->counts[V_FAIL] + s->counts[V_XPASS] + s->counts[V_ERROR];
    fprintf(out, "</p>\n<p><b>%d passed, %d failed, %d skipped</b> (%d results)</p>\n", passed, failed,
            s->counts[V_SKIP], s->n);
}

/* One table, a heading row per kernel and a row per backend, device and width under it:
 * compact enough that many kernels fit a screen. */
static void kernel_tables(FILE *out, const struct rep_sink *s)
{
    fputs("<h2>Results by kernel</h2>\n<table><tr><th>backend</th><th>device</th><th>width</th>", out);
    for (int v = 0; v < V_COUNT; v++)
        fprintf(out, "<th>%s</th>", verdict_name((enum hb_verdict)v));
    fputs("<th>max ratio</th><th>max ulp</th><th>worst sum error</th></tr>\n", out);
    struct rep_group *groups;
    int n = rep_groups(s, &groups);
    for (int i = 0; i < n; i++) {
        const struct rep_group *g = &groups[i];
        const struct rep_result *k = g->first;
        if (g->new_kernel) {
            fprintf(out, "<tr class=\"k\"><th colspan=\"%d\">", V_COUNT + 6);
            html_text(out, k->lang);
            fputc('/', out);
            html_text(out, k->kernel);
            fprintf(out, " <span>(%s)</span></th></tr>\n", op_name(k->op));
        }
        fputs("<tr><td>", out);
        html_text(out, k->backend);
        fputs("</td><td>", out);
        html_text(out, k->device);
        fprintf(out, "</td><td class=\"n\">%d</td>", k->width);
        for (int v = 0; v < V_COUNT; v++)
            if (g->counts[v])
                fprintf(out, "<td class=\"n\" style=\"color:%s;font-weight:bold\">%d</td>", verdict_color[v],
                        g->counts[v]);
            else
                fputs("<td class=\"n\"></td>", out);
        fprintf(out, "<td class=\"n\">%.3g</td><td class=\"n\">%" PRIu64 "</td>", g->worst_ratio, g->worst_ulp);
        if (op_get(k->op)->has_total)
            fprintf(out, "<td class=\"n\">%.3g%%</td></tr>\n", 100.0 * g->worst_sum);
        else
            fputs("<td></td></tr>\n", out);
    }
    fputs("</table>\n", out);
    free(groups);
}

static void legend(FILE *out)
{
    char lo[16], mid[16], hi[16], nan[16], unw[16];
    level_color(1, lo, sizeof lo);
    level_color(125, mid, sizeof mid);
    level_color(250, hi, sizeof hi);
    level_color(CMP_HEAT_NAN, nan, sizeof nan);
    level_color(CMP_HEAT_UNWRITTEN, unw, sizeof unw);
    fprintf(out,
            "<p class=\"legend\">Each cell is the worst element folded into it."
            "<span class=\"li\"><span class=\"sw\" style=\"background:#e8f0e8\"></span>within bound</span>"
            "<span class=\"li\"><span class=\"sw\" style=\"background:%s\"></span>at the threshold</span>"
            "<span class=\"li\"><span class=\"sw\" style=\"background:%s\"></span>2<sup>15</sup>&#215; over</span>"
            "<span class=\"li\"><span class=\"sw\" style=\"background:%s\"></span>2<sup>31</sup>&#215; over or "
            "exact data wrong</span>"
            "<span class=\"li\"><span class=\"sw\" style=\"background:%s\"></span>NaN/Inf mismatch</span>"
            "<span class=\"li\"><span class=\"sw\" style=\"background:%s\"></span>never written</span></p>\n",
            lo, mid, hi, nan, unw);
}

static void maps_section(FILE *out, const struct rep_sink *s)
{
    int cases = 0, groups = 0;
    for (int i = 0; i < s->n; i++) {
        cases += fails(s->all[i].verdict) && !s->all[i].group_row;
        groups += s->all[i].group_row && s->all[i].verdict != V_PASS;
    }
    if (groups) {
        fputs("<h2>Whole-group results</h2>\n<table><tr><th>verdict</th><th>kernel</th><th>backend</th>"
              "<th>device</th><th>width</th><th>why</th></tr>\n", out);
        for (int i = 0; i < s->n; i++) {
            const struct rep_result *r = &s->all[i];
            if (!r->group_row || r->verdict == V_PASS)
                continue;
            fprintf(out, "<tr><td style=\"color:%s;font-weight:bold\">%s</td><td>", verdict_color[r->verdict],
                    verdict_name(r->verdict));
            html_text(out, r->lang);
            fputc('/', out);
            html_text(out, r->kernel);
            fputs("</td><td>", out);
            html_text(out, r->backend);
            fputs("</td><td>", out);
            html_text(out, r->device);
            fprintf(out, "</td><td class=\"n\">%d</td><td>", r->width);
            html_text(out, r->why);
            fputs("</td></tr>\n", out);
        }
        fputs("</table>\n", out);
    }
    fprintf(out, "<h2>Where the bad elements sit (%d failing or XFAIL case%s)</h2>\n", cases, cases == 1 ? "" : "s");
    if (!cases)
        return;
    legend(out);
    fputs("<div class=\"maps\">\n", out);
    for (int i = 0; i < s->n; i++) {
        const struct rep_result *r = &s->all[i];
        if (!fails(r->verdict) || r->group_row)
            continue;
        fputs("<figure>", out);
        /* A crash or a hang leaves no output to map: the caption says why. */
        if (r->cmp.elements)
            svg_map(out, r);
        caption(out, r);
        fputs("</figure>\n", out);
    }
    fputs("</div>\n", out);
}

int html_write(const char *path, const struct rep_sink *s, struct hb_err *err)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    fputs(page_head, out);
    /* Failures first: they are what a reader opens the page for. */
    counts_section(out, s);
    maps_section(out, s);
    kernel_tables(out, s);
    fputs("</body>\n</html>\n", out);
    if (ferror(out) | fclose(out)) {
        err_set(err, "%s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
