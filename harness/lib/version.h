/* SPDX-License-Identifier: MIT */
/* version.h: `harness --version`: the release, the git commit and how this binary was built
 * (compiler, flags, which backends were built or skipped and why), all fixed at build time by
 * the GNUmakefile, plus where this binary finds its data. It probes no device. */
#ifndef HB_VERSION_H
#define HB_VERSION_H

#include <stdio.h>

/* "0.2.0 (commit 1234abcd5678)": the line a report header can carry. */
const char *version_string(void);
void version_print(FILE *out);

#endif
