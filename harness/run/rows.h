/* SPDX-License-Identifier: MIT */
/* rows.h: result rows as the run builds them, below everything that writes one (supervise.c,
 * the scheduler, shrink.c): a row's identity and case fields from the parent's own plan, and
 * the one way a row for a whole group is made. It judges nothing and writes no report. */
#ifndef HB_ROWS_H
#define HB_ROWS_H

#include "runner.h"

/* A result row's identity fields (backend, device, kernel, width, op), for every writer; the
 * rest zeroed. */
void rows_identity(struct rep_result *r, const struct group *g);
/* The case's fields of a row whose identity is filled. */
void rows_case(struct rep_result *r, const struct hb_case *c);
/* A row for the whole group (case "*", group_row): a verdict that is not any one case's, with
 * its classes and words (NULL: none). */
void rows_group(struct rep_result *r, const struct group *g, enum hb_verdict verdict, unsigned classes,
                const char *why);

#endif
