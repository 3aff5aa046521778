/* SPDX-License-Identifier: MIT */
/* manifest_fixture.h: what the manifest suites share (test_manifest.c,
 * test_manifest_errors.c): a scratch folder per test holding the sources the manifests name,
 * as a Check fixture. Header-only, for tests. */
#ifndef HB_MANIFEST_FIXTURE_H
#define HB_MANIFEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tutil.h"

static char *dir;

/* A scratch folder with the sources the manifests name. */
static inline void setup(void)
{
    dir = t_tmpdir();
    free(t_write(dir, "sg.cu", "// sgemm\n"));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    free(t_write(sub, "rd.comp", "// reduce\n"));
}

static inline void teardown(void) { t_rmtree(dir); }

#endif
