/* SPDX-License-Identifier: MIT */
/* csv.h: --csv, one line per result as deqp-runner's results.csv has them (test, status,
 * duration in seconds; Pass, Fail, Skip, Crash, Timeout, ExpectedFail, UnexpectedPass, Warn),
 * then this harness's own verdict, failure classes and description. No header line, as there.
 * Written once, after the run, from the sink's results. */
#ifndef HB_CSV_H
#define HB_CSV_H

#include <stdio.h>

#include "report.h"

void rep_write_csv(FILE *f, const struct rep_sink *s);

#endif
