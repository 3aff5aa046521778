/* html.h: one self-contained HTML page for a run: verdict counts, a table per kernel, and for
 * each failing or XFAIL case an inline SVG of where its bad elements sit (the heat map) with
 * the figures as a caption. No scripts and no external files; it reads only the records. */
#ifndef HB_HTML_H
#define HB_HTML_H

#include <stdio.h>

#include "report.h"
#include "util.h"

int html_write(const char *path, const struct rep_sink *s, struct hb_err *err);

/* Text escaped for HTML element content and quoted attributes; exposed for the tests. */
void html_text(FILE *out, const char *s);

#endif
