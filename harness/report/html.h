/* SPDX-License-Identifier: MIT */
/* html.h: one self-contained HTML page for a run: an overview matrix (kernels x backend,
 * device and width, coloured by verdict, each cell a link), the failures with a heat map of
 * where their bad elements sit and the command that reruns them, the expected failures
 * folded away, and the table per kernel. No scripts and no external files; it reads only
 * the records and decides nothing. */
#ifndef HB_HTML_H
#define HB_HTML_H

#include <stdio.h>

#include "report.h"
#include "util.h"

/* Writes the page to out; the caller checks the writes when it closes out. */
void html_write(FILE *out, const struct rep_sink *s);
/* The page that stands in for the report while the run goes on: it says the run has not
 * finished, so a run killed before its end leaves no page that looks like a result. */
void html_write_unfinished(FILE *out);

/* Text escaped for HTML element content and quoted attributes, invalid UTF-8 and controls
 * written as U+FFFD; exposed for the tests. */
void html_text(FILE *out, const char *s);

/* html_map.c: one failing case as a <figure>: its heat map (when it has an output) and a
 * caption with the figures and the reproducer; `id` is its anchor. */
void html_figure(FILE *out, const struct rep_result *r, const struct run_header *h, const char *id);
/* The colour legend of the maps. */
void html_legend(FILE *out);
extern const char *const html_verdict_color[V_COUNT];

#endif
