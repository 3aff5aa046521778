/* SPDX-License-Identifier: MIT */
/* version.c: see version.h. build_info.h is generated in the build folder (GNUmakefile). */
#include "version.h"

#include "build_info.h"
#include "util.h"

const char *version_string(void) { return HB_VERSION " (commit " HB_COMMIT ")"; }

void version_print(FILE *out)
{
    fprintf(out, "harness %s\n", version_string());
    fprintf(out, "compiler: %s\n", HB_BUILD_CC);
    fprintf(out, "cflags:   %s\n", HB_BUILD_CFLAGS);
    fprintf(out, "ldflags:  %s\n", HB_BUILD_LDFLAGS);
    fprintf(out, "backends: %s\n", HB_BUILD_BACKENDS);
    fprintf(out, "data:     %s (kernel sources, cases)\n", path_root_dir());
    fprintf(out, "products: %s (backends, built kernels)\n", path_exe_dir());
}
