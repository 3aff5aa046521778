/* SPDX-License-Identifier: MIT */
/* junit.h: JUnit XML as results arrive, shaped for CI reporters: a <testsuite> per (backend,
 * device, width) with <properties>, timestamps and hostname, test ids that hold the device,
 * failure messages with figures and the reproducer in the body. A regular file is always a
 * whole document (written beside it and renamed into place), at most a second behind the run,
 * so an interrupted run keeps a readable report; a pipe or "-" (stdout) gets it at the end. */
#ifndef HB_JUNIT_H
#define HB_JUNIT_H

#include <stdio.h>

#include "report.h"

struct junit;

/* Creates path and writes the root; NULL with err when it cannot be written. */
struct junit *junit_open(const char *path, const struct run_header *h, struct hb_err *err);
/* Appends one result (opening its suite when it differs from the last one); -1 when a write
 * fails (errno says why). */
int junit_add(struct junit *j, const struct rep_result *r, const struct run_header *h);
/* Writes the last document, closes the file and frees j; -1 when the last writes or the close
 * failed. unfinished NULL: the run finished, the document holds its results alone; else the
 * reason the run is not whole (interrupted...), kept as the error test case. */
int junit_close(struct junit *j, const char *unfinished);

/* Text escaped for XML attributes and content: markup escaped, characters XML 1.0 forbids
 * (most controls) and invalid UTF-8 written as U+FFFD. */
void junit_text(FILE *out, const char *s);

#endif
