/* SPDX-License-Identifier: MIT */
/* report_file.h: an after-run report file (the HTML page, the CSV, the baseline record) that
 * replaces its target in one step: written whole to a temporary beside it, then renamed over
 * it, so a run killed before or while writing leaves the previous file (or what was last
 * committed) whole, never an empty or half-written one. A target that is not a regular file
 * (a pipe, /dev/null, "-" for standard output) is opened before the run and written directly.
 * It decides nothing about what goes in the file. */
#ifndef HB_REPORT_FILE_H
#define HB_REPORT_FILE_H

#include <stdio.h>

#include "util.h"

struct rep_file {
    char *path;
    FILE *direct; /* a target that is not a regular file, open from rep_file_prepare on */
    FILE *f;      /* the stream rep_file_begin gave */
    char *tmp;    /* its temporary (NULL: direct) */
};

/* Before the run: checks that path can be written without touching it (a new file can be made
 * in its folder, and is removed again), or opens it when it is not a regular file. -1 with
 * "PATH: cannot write: why" in err. */
int rep_file_prepare(struct rep_file *rf, const char *path, struct hb_err *err);
/* The stream to write the file's content to: a fresh temporary beside the target (mode 0644),
 * or the direct stream. NULL with err. */
FILE *rep_file_begin(struct rep_file *rf, struct hb_err *err);
/* Checks every write that went into the stream, closes it and renames the temporary over the
 * target; the file may be begun again. -1 with err (the temporary removed, the target as it was). */
int rep_file_commit(struct rep_file *rf, struct hb_err *err);
/* Closes whatever is open, removes an uncommitted temporary, frees; the target stays as it is. */
void rep_file_release(struct rep_file *rf);
/* After a failed write's error number: the limit behind it, for the message (" (ulimit -f?)"
 * for EFBIG, a file past the file size limit), else "". */
const char *rep_file_limit(int err);

#endif
