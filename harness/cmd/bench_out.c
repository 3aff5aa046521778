/* SPDX-License-Identifier: MIT */
/* bench_out.c: bench's rows as files: one JSON document (run header, then the rows), CSV
 * (RFC 4180, one header line) and an SVG line chart of SGEMM per size, one line per kernel
 * and device, for the README's speed table and for people. It measures nothing. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "jsonl.h"
#include "report.h"

static const char *what_name(const struct bench_row *r)
{
    return r->what == BENCH_KERNEL ? "kernel" : r->what == BENCH_VENDOR ? "vendor" : "copy";
}

static FILE *open_out(const char *path, struct hb_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        err_set(err, "cannot write %s: %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path, struct hb_err *err)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        err_set(err, "error writing %s", path);
        return -1;
    }
    return 0;
}

/* A number, or null when the measure is unknown (negative). */
static void json_num(FILE *f, const char *key, double v, const char *fmt)
{
    fprintf(f, ", \"%s\": ", key);
    if (v < 0 || !isfinite(v))
        fputs("null", f);
    else
        fprintf(f, fmt, v);
}

static void json_row(FILE *f, const struct bench_row *r)
{
    fputs("    {\"impl\": ", f);
    jsonl_string(f, r->impl);
    fputs(", \"backend\": ", f);
    jsonl_string(f, r->backend);
    fputs(", \"device\": ", f);
    jsonl_string(f, r->device);
    fprintf(f, ", \"device_index\": %d, \"kind\": \"%s\", \"op\": \"%s\", \"n\": %ld", r->device_index, what_name(r),
            r->op, r->n);
    json_num(f, "ms", r->ms, "%.6g");
    json_num(f, r->flops ? "tflops" : "gbs", r->rate, "%.6g");
    json_num(f, r->flops ? "pct_vendor" : "pct_copy", r->pct_ruler, "%.4g");
    json_num(f, r->flops ? "pct_fp32_peak" : "pct_dram_peak", r->pct_peak, "%.4g");
    if (r->have_info) {
        fprintf(f, ", \"regs\": %d, \"shared_bytes\": %d, \"local_bytes\": %d, \"blocks_per_sm\": %d", r->info.regs,
                r->info.shared_bytes, r->info.local_bytes, r->info.blocks_per_sm);
        json_num(f, "occupancy", r->info.occupancy, "%.4g");
    }
    fputs(", \"driver\": ", f);
    jsonl_string(f, r->driver);
    fputs("}", f);
}

int bench_write_json(const char *path, const struct bench_opts *o, const struct bench_row *rows, int n,
                     struct hb_err *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\n  \"schema\": 1,\n  \"tool\": \"harness bench\",\n  \"date\": \"%s\",\n", date);
    fprintf(f, "  \"runs\": %d,\n  \"warmups\": 2,\n  \"reduce_n\": %ld,\n  \"sizes\": [", o->runs, o->reduce_n);
    for (int s = 0; s < o->n_sizes; s++)
        fprintf(f, "%s%ld", s ? ", " : "", o->sizes[s]);
    fputs("],\n  \"rows\": [\n", f);
    for (int i = 0; i < n; i++) {
        json_row(f, &rows[i]);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fputs("  ]\n}\n", f);
    return close_out(f, path, err);
}

/* RFC 4180: quoted, with quotes doubled. */
static void csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    if (v >= 0 && isfinite(v))
        fprintf(f, ",%.6g", v);
    else
        fputs(",", f);
}

int bench_write_csv(const char *path, const struct bench_row *rows, int n, struct hb_err *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    fputs("impl,backend,device,device_index,kind,op,n,ms,rate,unit,pct_ruler,ruler,pct_peak,regs,"
          "shared_bytes,local_bytes,blocks_per_sm,occupancy,driver\n",
          f);
    for (int i = 0; i < n; i++) {
        const struct bench_row *r = &rows[i];
        csv_text(f, r->impl);
        fputc(',', f);
        csv_text(f, r->backend);
        fputc(',', f);
        csv_text(f, r->device);
        fprintf(f, ",%d,%s,%s,%ld", r->device_index, what_name(r), r->op, r->n);
        csv_num(f, r->ms);
        csv_num(f, r->rate);
        fprintf(f, ",%s", r->flops ? "TFLOPS" : "GB/s");
        csv_num(f, r->pct_ruler);
        fprintf(f, ",%s", r->flops ? "vendor" : "copy");
        csv_num(f, r->pct_peak);
        if (r->have_info)
            fprintf(f, ",%d,%d,%d,%d,%.4g", r->info.regs, r->info.shared_bytes, r->info.local_bytes,
                    r->info.blocks_per_sm, r->info.occupancy);
        else
            fputs(",,,,,", f);
        fputc(',', f);
        csv_text(f, r->driver);
        fputc('\n', f);
    }
    return close_out(f, path, err);
}

/* The SVG chart: x = the sizes (evenly spaced), y = % of vendor or TFLOPS from 0 to a
 * rounded maximum, one polyline per series (a kernel or the vendor on one device). */
#define SVG_W 820
#define SVG_H 440
#define SVG_L 64 /* plot area: left, top, right edge, bottom edge */
#define SVG_T 44
#define SVG_R 560
#define SVG_B 390
#define SVG_MAX_SERIES 32

struct svg_plot {
    long sizes[BENCH_MAX_SIZES];
    int n_sizes;
    int pct;                                       /* y is % of the vendor (every SGEMM row has it), else TFLOPS */
    double top;                                    /* y axis maximum */
    const struct bench_row *first[SVG_MAX_SERIES]; /* a row of each series, to name it */
    int n_series;
};

static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

static int same_series(const struct bench_row *a, const struct bench_row *b)
{
    return !strcmp(a->impl, b->impl) && !strcmp(a->backend, b->backend) && a->device_index == b->device_index;
}

static double svg_y(const struct bench_row *r, int pct) { return pct ? r->pct_ruler : r->rate; }

/* Sizes, series and the y range of the SGEMM rows. */
static void svg_scan(struct svg_plot *pl, const struct bench_row *rows, int n)
{
    memset(pl, 0, sizeof *pl);
    pl->pct = 1;
    for (int i = 0; i < n; i++)
        if (rows[i].flops && rows[i].pct_ruler < 0)
            pl->pct = 0;
    double max = 0;
    for (int i = 0; i < n; i++) {
        const struct bench_row *r = &rows[i];
        if (!r->flops)
            continue;
        int s = 0, k = 0;
        while (s < pl->n_sizes && pl->sizes[s] != r->n)
            s++;
        if (s == pl->n_sizes && s < BENCH_MAX_SIZES)
            pl->sizes[pl->n_sizes++] = r->n;
        while (k < pl->n_series && !same_series(pl->first[k], r))
            k++;
        if (k == pl->n_series && k < SVG_MAX_SERIES)
            pl->first[pl->n_series++] = r;
        max = fmax(max, svg_y(r, pl->pct));
    }
    for (int a = 0; a < pl->n_sizes; a++) /* ascending */
        for (int b = a + 1; b < pl->n_sizes; b++)
            if (pl->sizes[b] < pl->sizes[a]) {
                long t = pl->sizes[a];
                pl->sizes[a] = pl->sizes[b], pl->sizes[b] = t;
            }
    double step = pl->pct ? 20 : pow(10, floor(log10(fmax(max, 1e-9))));
    pl->top = fmax(step, ceil(max * 1.05 / step) * step);
}

static double svg_px(const struct svg_plot *pl, long n)
{
    int s = 0;
    while (s < pl->n_sizes - 1 && pl->sizes[s] != n)
        s++;
    return pl->n_sizes > 1 ? SVG_L + 20 + (double)s * (SVG_R - SVG_L - 40) / (pl->n_sizes - 1) : (SVG_L + SVG_R) / 2.0;
}

static double svg_py(const struct svg_plot *pl, double v) { return SVG_B - v / pl->top * (SVG_B - SVG_T); }

static void svg_axes(FILE *f, const struct svg_plot *pl)
{
    fprintf(
        f, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">SGEMM %s per size (n x n x n, fp32)</text>\n",
        SVG_L, pl->pct ? "speed, % of the vendor library," : "TFLOPS");
    for (int t = 0; t <= 5; t++) {
        double v = pl->top * t / 5, y = svg_py(pl, v);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", SVG_L, y, SVG_R, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%.4g%s</text>\n", SVG_L - 6, y + 4,
                v, pl->pct ? "%" : "");
    }
    for (int s = 0; s < pl->n_sizes; s++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%ld</text>\n",
                svg_px(pl, pl->sizes[s]), SVG_B + 18, pl->sizes[s]);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", SVG_L, SVG_B, SVG_R, SVG_B);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", SVG_L, SVG_T, SVG_L, SVG_B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">n</text>\n", (SVG_L + SVG_R) / 2,
            SVG_B + 38);
}

/* One series: its polyline, a marker with a tooltip per point, and its legend entry. */
static void svg_series(FILE *f, const struct svg_plot *pl, int k, const struct bench_row *rows, int n)
{
    static const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const char *color = colors[k % 10];
    const struct bench_row *id = pl->first[k];
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", color,
            id->what == BENCH_VENDOR ? " stroke-dasharray=\"6 4\"" : "");
    for (int s = 0; s < pl->n_sizes; s++)
        for (int i = 0; i < n; i++)
            if (rows[i].flops && same_series(&rows[i], id) && rows[i].n == pl->sizes[s])
                fprintf(f, "%.1f,%.1f ", svg_px(pl, rows[i].n), svg_py(pl, svg_y(&rows[i], pl->pct)));
    fputs("\"/>\n", f);
    for (int i = 0; i < n; i++)
        if (rows[i].flops && same_series(&rows[i], id)) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", svg_px(pl, rows[i].n),
                    svg_py(pl, svg_y(&rows[i], pl->pct)), color);
            svg_text(f, id->impl);
            fprintf(f, " n=%ld: %.2f TFLOPS", rows[i].n, rows[i].rate);
            if (rows[i].pct_ruler >= 0)
                fprintf(f, ", %.1f%% of vendor", rows[i].pct_ruler);
            fputs("</title></circle>\n", f);
        }
    double y = SVG_T + 8 + 20.0 * k;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n", SVG_R + 16, y,
            SVG_R + 40, y, color);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\">", SVG_R + 46, y + 4);
    svg_text(f, id->impl);
    fprintf(f, " (%s", id->backend);
    if (id->device_index)
        fprintf(f, ", device %d", id->device_index);
    fputs(")</text>\n", f);
}

int bench_write_svg(const char *path, const struct bench_row *rows, int n, struct hb_err *err)
{
    struct svg_plot pl;
    svg_scan(&pl, rows, n);
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    int h = SVG_H > SVG_T + 20 * pl.n_series + 20 ? SVG_H : SVG_T + 20 * pl.n_series + 20;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            SVG_W, h, SVG_W, h);
    if (pl.n_series == 0)
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\">no SGEMM timings in this run</text>\n", SVG_L, SVG_T);
    else
        svg_axes(f, &pl);
    for (int k = 0; k < pl.n_series; k++)
        svg_series(f, &pl, k, rows, n);
    fputs("</svg>\n", f);
    return close_out(f, path, err);
}
