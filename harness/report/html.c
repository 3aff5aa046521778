/* SPDX-License-Identifier: MIT */
/* html.c: the page, in the order a reader needs it: counts, the overview matrix (one row per
 * kernel, one column per backend, device and width, each cell the group's verdicts and a link
 * to its row below), the failures with maps, the expected failures (XFAIL) folded in
 * <details> as one compact table so a green run stays small, and the table per kernel.
 * Styling is inline CSS; the page needs nothing else to display. */
#include "html.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<title>GPU kernel conformance report</title>\n<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}\n"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}\n"
    "table{border-collapse:collapse;margin-bottom:8px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
    "th{background:#f2f2f2}td.n{text-align:right}tr.k th{background:#e3e9f3;padding-top:6px}tr.k "
    "span{font-weight:normal}\n"
    "table.ov td{text-align:center;padding:0}table.ov td a{display:block;padding:3px 8px;color:#fff;"
    "text-decoration:none;font-weight:bold}table.ov th.c{font-weight:normal;font-size:12px}\n"
    ".badge{display:inline-block;padding:3px 10px;margin:0 6px 6px 0;border-radius:4px;color:#fff;font-weight:bold}\n"
    ".maps{display:flex;flex-wrap:wrap;gap:18px}\n"
    "figure{margin:0;padding:10px;border:1px solid #ddd;border-radius:4px;max-width:420px}\n"
    "figcaption{font-size:12px;margin-top:6px;overflow-wrap:anywhere}code{font-size:11px}\n"
    "table.x td{font-size:12px;overflow-wrap:anywhere;max-width:640px}summary{cursor:pointer;font-weight:bold}\n"
    ".ax{font-size:10px;fill:#444}\n.legend .li{white-space:nowrap}.legend .sw{display:inline-block;width:14px;"
    "height:14px;vertical-align:middle;margin:0 4px 0 12px;border:1px solid #999}\n"
    "</style>\n</head>\n<body>\n";

static int failing(const struct rep_result *r) { return verdict_fails_run(r->verdict); }

/* The verdict a group shows: anything failing first, then the grey band, expected failures,
 * passes, and skips only when nothing ran. */
static enum hb_verdict group_verdict(const struct rep_group *g)
{
    static const enum hb_verdict order[] = {V_ERROR, V_FAIL, V_XPASS, V_SUSPECT, V_XFAIL, V_PASS, V_SKIP};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (g->counts[order[i]])
            return order[i];
    return V_SKIP;
}

static void counts_section(FILE *out, const struct rep_sink *s)
{
    fputs("<h1>GPU kernel conformance report</h1>\n<p>", out);
    for (int v = 0; v < V_COUNT; v++)
        fprintf(out, "<span class=\"badge\" style=\"background:%s\">%s %d</span>", html_verdict_color[v],
                verdict_name((enum hb_verdict)v), s->counts[v]);
    int passed = s->counts[V_PASS] + s->counts[V_SUSPECT] + s->counts[V_XFAIL];
    int failed = s->counts[V_FAIL] + s->counts[V_XPASS] + s->counts[V_ERROR];
    fprintf(out, "</p>\n<p><b>%d passed, %d failed, %d skipped</b> (%d results", passed, failed, s->counts[V_SKIP],
            s->n);
    if (s->hdr.start[0]) {
        fputs("; started ", out);
        html_text(out, s->hdr.start);
        fputs(" on ", out);
        html_text(out, s->hdr.hostname);
    }
    fputs(")</p>\n", out);
    if (s->interrupted)
        fprintf(out,
                "<p><b style=\"color:%s\">This run was interrupted: the results it did not reach are missing."
                "</b></p>\n",
                html_verdict_color[V_ERROR]);
}

/* Columns of the overview: distinct (backend, device, width), in the order they came. */
static int columns(const struct rep_group *g, int n, const struct rep_group **col)
{
    int nc = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < nc &&
               !(col[k]->first->width == g[i].first->width && col[k]->first->device_index == g[i].first->device_index &&
                 !strcmp(col[k]->first->backend, g[i].first->backend) &&
                 !strcmp(col[k]->first->device, g[i].first->device)))
            k++;
        if (k == nc)
            col[nc++] = &g[i];
    }
    return nc;
}

static int same_column(const struct rep_result *a, const struct rep_result *b)
{
    return a->width == b->width && a->device_index == b->device_index && !strcmp(a->backend, b->backend) &&
           !strcmp(a->device, b->device);
}

static void overview_cell(FILE *out, const struct rep_group *g, int index)
{
    enum hb_verdict v = group_verdict(g);
    int bad = g->counts[V_FAIL] + g->counts[V_XPASS] + g->counts[V_ERROR], all = 0;
    for (int k = 0; k < V_COUNT; k++)
        all += g->counts[k];
    fprintf(out, "<td style=\"background:%s\"><a href=\"#g%d\" title=\"%s\">", html_verdict_color[v], index,
            verdict_name(v));
    /* How many results have the cell's verdict, out of how many: 5 XFAIL among 38 PASS must
     * not read as 43 XFAIL. */
    int shown = bad ? bad : g->counts[v];
    if (bad || shown < all)
        fprintf(out, "%d/%d %s", shown, all, verdict_name(v));
    else
        fprintf(out, "%d %s", all, verdict_name(v));
    fputs("</a></td>", out);
}

static void overview(FILE *out, const struct rep_group *g, int n)
{
    const struct rep_group **col = xcalloc((size_t)n + 1, sizeof *col);
    int nc = columns(g, n, col);
    fputs("<h2 id=\"overview\">Overview</h2>\n<table class=\"ov\"><tr><th>kernel</th>", out);
    for (int c = 0; c < nc; c++) {
        fputs("<th class=\"c\">", out);
        html_text(out, col[c]->first->backend);
        fprintf(out, " %d<br>w%d</th>", col[c]->first->device_index, col[c]->first->width);
    }
    fputs("</tr>\n", out);
    for (int i = 0; i < n; i++) {
        if (!g[i].new_kernel)
            continue;
        fputs("<tr><th>", out);
        html_text(out, g[i].first->lang);
        fputc('/', out);
        html_text(out, g[i].first->kernel);
        fputs("</th>", out);
        for (int c = 0; c < nc; c++) {
            int found = -1;
            for (int k = i; k < n && found < 0 && (k == i || !g[k].new_kernel); k++)
                if (same_column(g[k].first, col[c]->first))
                    found = k;
            if (found >= 0)
                overview_cell(out, &g[found], found);
            else
                fputs("<td></td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p>Columns: backend, device number and width", out);
    for (int c = 0; c < nc; c++) {
        int named = 0; /* one device, several widths: named once */
        for (int k = 0; k < c && !named; k++)
            named = col[k]->first->device_index == col[c]->first->device_index &&
                    !strcmp(col[k]->first->backend, col[c]->first->backend);
        if (named)
            continue;
        fprintf(out, "; %s %d = ", col[c]->first->backend, col[c]->first->device_index);
        html_text(out, col[c]->first->device);
    }
    fputs(".</p>\n", out);
    free(col);
}

static void failures(FILE *out, const struct rep_sink *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += failing(&s->all[i]);
    fprintf(out, "<h2 id=\"failures\">Failures (%d)</h2>\n", n);
    if (!n)
        return;
    html_legend(out);
    fputs("<div class=\"maps\">\n", out);
    for (int i = 0; i < s->n; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        if (failing(&s->all[i]))
            html_figure(out, &s->all[i], &s->hdr, id);
    }
    fputs("</div>\n", out);
}

/* Expected failures and skips: one compact row each, folded, no maps. */
static void folded(FILE *out, const struct rep_sink *s, enum hb_verdict v, const char *title)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->all[i].verdict == v;
    if (!n)
        return;
    fprintf(out,
            "<details id=\"%s\"><summary>%s (%d)</summary>\n<table class=\"x\"><tr><th>id</th><th>what</th></tr>\n",
            verdict_name(v), title, n);
    for (int i = 0; i < s->n; i++) {
        const struct rep_result *r = &s->all[i];
        if (r->verdict != v)
            continue;
        char text[4096];
        rep_result_id(r, text, sizeof text);
        fprintf(out, "<tr id=\"r%d\"><td>", i);
        html_text(out, text);
        fputs("</td><td>", out);
        rep_describe(r, text, sizeof text);
        html_text(out, text);
        fputs("</td></tr>\n", out);
    }
    fputs("</table></details>\n", out);
}

static void group_row(FILE *out, const struct rep_sink *s, const struct rep_group *g, int index)
{
    const struct rep_result *k = g->first;
    fprintf(out, "<tr id=\"g%d\"><td>", index);
    html_text(out, k->backend);
    fprintf(out, " %d</td><td>", k->device_index);
    html_text(out, k->device);
    fprintf(out, "</td><td class=\"n\">%d</td>", k->width);
    for (int v = 0; v < V_COUNT; v++)
        if (g->counts[v])
            fprintf(out, "<td class=\"n\" style=\"color:%s;font-weight:bold\">%d</td>", html_verdict_color[v],
                    g->counts[v]);
        else
            fputs("<td class=\"n\"></td>", out);
    fprintf(out, "<td class=\"n\">%.3g</td><td class=\"n\">%" PRIu64 "</td>", g->worst_margin, g->worst_ulp);
    if (op_get(k->op)->has_total)
        fprintf(out, "<td class=\"n\">%.3g%%</td>", 100.0 * g->worst_sum);
    else
        fputs("<td></td>", out);
    /* A link to the group's first failure or expected failure. */
    fputs("<td>", out);
    for (int i = 0; i < s->n; i++) {
        const struct rep_result *r = &s->all[i];
        if (rep_same_group(r, k) && (failing(r) || r->verdict == V_XFAIL)) {
            fprintf(out, "<a href=\"#r%d\">%s</a>", i, failing(r) ? "first failure" : "first XFAIL");
            break;
        }
    }
    fputs("</td></tr>\n", out);
}

static void kernel_tables(FILE *out, const struct rep_sink *s, const struct rep_group *groups, int n)
{
    fputs("<h2 id=\"kernels\">Results by kernel</h2>\n<table><tr><th>backend</th><th>device</th><th>width</th>", out);
    for (int v = 0; v < V_COUNT; v++)
        fprintf(out, "<th>%s</th>", verdict_name((enum hb_verdict)v));
    fputs("<th>worst ratio / threshold</th><th>max ulp</th><th>worst sum error</th><th></th></tr>\n", out);
    for (int i = 0; i < n; i++) {
        const struct rep_result *k = groups[i].first;
        if (groups[i].new_kernel) {
            fprintf(out, "<tr class=\"k\"><th colspan=\"%d\">", V_COUNT + 7);
            html_text(out, k->lang);
            fputc('/', out);
            html_text(out, k->kernel);
            fprintf(out, " <span>(%s)</span></th></tr>\n", op_name(k->op));
        }
        group_row(out, s, &groups[i], i);
    }
    fputs("</table>\n", out);
}

void html_write_unfinished(FILE *out)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs(page_head, out);
    fprintf(out,
            "<h1>GPU kernel conformance report</h1>\n<p><b style=\"color:%s\">Not finished: a harness run started at "
            "%s writes this page when it ends.</b> If no run is going on, it was killed before it could: its results "
            "are not here (its JSON lines, if it wrote any, hold those it reached).</p>\n</body>\n</html>\n",
            html_verdict_color[V_ERROR], stamp);
}

void html_write(FILE *out, const struct rep_sink *s)
{
    struct rep_group *groups;
    int n = rep_groups(s, &groups);
    fputs(page_head, out);
    counts_section(out, s);
    fputs("<p><a href=\"#overview\">overview</a> &#183; <a href=\"#failures\">failures</a> &#183; "
          "<a href=\"#XFAIL\">expected failures</a> &#183; <a href=\"#kernels\">results by kernel</a></p>\n",
          out);
    overview(out, groups, n);
    failures(out, s);
    fputs("<h2>Expected failures and skips</h2>\n", out);
    folded(out, s, V_XFAIL, "Expected failures: known-bad kernels caught, known bugs");
    folded(out, s, V_SUSPECT, "Suspect: in the grey band above the threshold");
    folded(out, s, V_SKIP, "Skipped");
    kernel_tables(out, s, groups, n);
    fputs("</body>\n</html>\n", out);
    free(groups);
}
