/* SPDX-License-Identifier: MIT */
/* infile.h: opening a file the user names as an input (case catalogues and their includes,
 * manifests, known-bug lists, JSON lines for --compare, --rerun-failed and merge). Only a
 * regular file is read: a FIFO would block the run forever and a device never ends. */
#ifndef HB_INFILE_H
#define HB_INFILE_H

#include <stdio.h>

#include "util.h"

/* path opened for reading, or NULL with "PATH: cannot open: REASON" or "PATH: not a regular
 * file" in err and errno set (ENOENT for a missing file, EINVAL for one not regular). The
 * open itself never blocks. */
FILE *infile_open(const char *path, struct hb_err *err);

#endif
