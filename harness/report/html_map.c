/* SPDX-License-Identifier: MIT */
/* html_map.c: a failing case's figure. The heat map is SVG rectangles, one per heat cell,
 * with only as many rows and columns as the output has (a 15-row C gets 15 rows, not 32 with
 * gaps), so a tile-edge bug shows as stripes at a glance; small outputs get larger cells and
 * the picture is sized to hold its axis labels; cells past the end of a short reduction grid
 * are not drawn at all. */
#include "html.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define MAP_PIXELS 288 /* the largest side of a map */
#define MAP_PAD 34     /* room for the axis labels */
#define CHAR_PX 6      /* width of one label character at the labels' 10 px */

const char *const html_verdict_color[V_COUNT] = {"#2e7d32", "#9e9d24", "#c62828", "#6a1b9a",
                                                 "#d84315", "#757575", "#ad1457"};

void html_text(FILE *out, const char *s) { txt_markup(out, s, TXT_HTML); }

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

/* Drawn grid: rows x cols cells, each mapped to a heat cell. SGEMM folds C's rows and columns
 * onto 32 each; a reduction lays its block partials out row by row. */
struct grid {
    long rows, cols, items; /* items: cells with data (a reduction's last row may be short) */
    int cell;               /* pixels per cell */
};

/* The matrix the heat map folds: the output the comparison names for an op of several
 * (custom), else the op's own (SGEMM's C, M x N: op_desc.heat_shape), 0 x 0 for a list. */
static void map_shape(const struct rep_result *r, long *rows, long *cols)
{
    *rows = *cols = 0;
    if (r->cmp.heat_rows > 1 && r->cmp.heat_cols > 0)
        *rows = r->cmp.heat_rows, *cols = r->cmp.heat_cols;
    else if (op_get(r->op)->heat_shape)
        op_get(r->op)->heat_shape(r, rows, cols);
}

/* Items of a list: a reduction's partials, or a custom op's named output of one row. */
static long map_items(const struct rep_result *r)
{
    return r->cmp.heat_rows == 1 && r->cmp.heat_cols > 0 ? r->cmp.heat_cols : r->cmp.elements;
}

static struct grid grid_of(const struct rep_result *r)
{
    struct grid g;
    long m, n;
    map_shape(r, &m, &n);
    if (m > 0 && n > 0) {
        g.rows = m < CMP_HEAT ? m : CMP_HEAT;
        g.cols = n < CMP_HEAT ? n : CMP_HEAT;
        g.items = g.rows * g.cols;
    } else {
        long blocks = map_items(r);
        g.items = blocks < CMP_HEAT * CMP_HEAT ? blocks : CMP_HEAT * CMP_HEAT;
        g.cols = g.items < CMP_HEAT ? g.items : CMP_HEAT;
        g.rows = (g.items + CMP_HEAT - 1) / CMP_HEAT;
    }
    long side = g.rows > g.cols ? g.rows : g.cols;
    g.cell = side > 0 && MAP_PIXELS / side < 24 ? (int)(MAP_PIXELS / side) : 24;
    return g;
}

static unsigned heat_at(const struct rep_result *r, long row, long col)
{
    long cell, m, n;
    map_shape(r, &m, &n);
    if (m > 0 && n > 0) {
        long hr = m < CMP_HEAT ? row * CMP_HEAT / m : row;
        long hc = n < CMP_HEAT ? col * CMP_HEAT / n : col;
        cell = hr * CMP_HEAT + hc;
    } else {
        long d = row * CMP_HEAT + col, blocks = map_items(r);
        cell = blocks < CMP_HEAT * CMP_HEAT ? d * CMP_HEAT * CMP_HEAT / blocks : d;
    }
    return r->cmp.heat[cell];
}

/* The "within bound" background, only under cells that hold data. */
static void background(FILE *out, const struct grid *g)
{
    long full = g->items / g->cols, rest = g->items % g->cols;
    const char *rect = "<rect x=\"%d\" y=\"%ld\" width=\"%ld\" height=\"%ld\" fill=\"#e8f0e8\" stroke=\"#555\"/>";
    if (full)
        fprintf(out, rect, MAP_PAD, (long)MAP_PAD, g->cols * g->cell, full * g->cell);
    if (rest)
        fprintf(out, rect, MAP_PAD, MAP_PAD + full * g->cell, rest * g->cell, (long)g->cell);
}

static void svg_map(FILE *out, const struct rep_result *r)
{
    struct grid g = grid_of(r);
    char top[96], side[64];
    long m, n;
    map_shape(r, &m, &n);
    /* The buffer's name is a C name (custom_parse.c), but it came through a child and JSON:
     * only the characters a C name has reach the page. */
    char of[sizeof r->cmp.first_buffer] = "C";
    for (size_t i = 0, o = 0; r->cmp.first_buffer[i] && i < sizeof of - 1; i++, of[o] = 0)
        if (isalnum((unsigned char)r->cmp.first_buffer[i]) || r->cmp.first_buffer[i] == '_')
            of[o++] = r->cmp.first_buffer[i];
    if (m > 0 && n > 0) {
        snprintf(top, sizeof top, "columns 0..%ld of %.15s &#8594;", n - 1, of);
        snprintf(side, sizeof side, "rows 0..%ld &#8594;", m - 1);
    } else if (r->cmp.first_buffer[0]) {
        snprintf(top, sizeof top, "%.15s[0..%ld], row by row &#8594;", of, map_items(r) - 1);
        side[0] = 0;
    } else {
        snprintf(top, sizeof top, "block partials 0..%ld, row by row &#8594;", r->cmp.elements - 1);
        side[0] = 0;
    }
    /* Wide and tall enough for the labels, whatever the map's own size. */
    long w = g.cols * g.cell, h = g.rows * g.cell;
    long label_w = (long)strlen(top) * CHAR_PX - 6 * CHAR_PX, label_h = (long)strlen(side) * CHAR_PX - 6 * CHAR_PX;
    long width = MAP_PAD + (w > label_w ? w : label_w) + 4, height = MAP_PAD + (h > label_h ? h : label_h) + 4;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%ld\" height=\"%ld\" role=\"img\">", width, height);
    background(out, &g);
    for (long i = 0; i < g.items; i++) {
        long row = i / g.cols, col = i % g.cols;
        unsigned level = heat_at(r, row, col);
        if (!level)
            continue;
        char color[16];
        level_color(level, color, sizeof color);
        fprintf(out, "<rect x=\"%ld\" y=\"%ld\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", MAP_PAD + col * g.cell,
                MAP_PAD + row * g.cell, g.cell, g.cell, color);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax\">%s</text>", MAP_PAD, MAP_PAD - 8, top);
    if (side[0])
        fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax\" transform=\"rotate(90 %d %d)\">%s</text>", MAP_PAD - 12,
                MAP_PAD, MAP_PAD - 12, MAP_PAD, side);
    fputs("</svg>", out);
}

static void caption_figures(FILE *out, const struct rep_result *r)
{
    char text[4096];
    rep_case_text(r, text, sizeof text);
    fputs("case <b>", out);
    html_text(out, r->case_name);
    fputs("</b> ", out);
    html_text(out, text);
    fputs("<br>", out);
    rep_describe(r, text, sizeof text);
    html_text(out, text);
}

void html_figure(FILE *out, const struct rep_result *r, const struct run_header *h, const char *id)
{
    fprintf(out, "<figure id=\"%s\">", id);
    if (r->cmp.elements) /* a crash or a hang leaves no output to map: the caption says why */
        svg_map(out, r);
    fprintf(out, "<figcaption><b style=\"color:%s\">%s</b> <b>", html_verdict_color[r->verdict],
            verdict_name(r->verdict));
    html_text(out, r->lang);
    fputc('/', out);
    html_text(out, r->kernel);
    fputs("</b><br>", out);
    html_text(out, r->backend);
    fprintf(out, " device %d (", r->device_index);
    html_text(out, r->device);
    fprintf(out, "), width %d<br>", r->width);
    caption_figures(out, r);
    char *cmd = rep_reproducer_text(r, h);
    fputs("<br>rerun: <code>", out);
    html_text(out, cmd);
    fputs("</code>", out);
    free(cmd);
    fputs("</figcaption></figure>\n", out);
}

void html_legend(FILE *out)
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
