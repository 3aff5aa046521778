/* SPDX-License-Identifier: MIT */
/* hip_entry_main.c: `hip-entry-<platform> ARCH SOURCE ENTRY [INCLUDE_DIR...]` compiles SOURCE
 * as the HIP backend compiles a user's kernel at run time (hip_rtc.c) for the target ARCH
 * (gfx90a, sm_90), with no GPU, and prints the symbol that ENTRY as a manifest writes it names
 * in the code object: what the backend hands hipModuleGetFunction. For the tests, and for a
 * user asking why an entry is not found. Exit 0 found, 1 not (the kernels there are listed),
 * 2 no build or bad usage. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_rtc.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s ARCH SOURCE ENTRY [INCLUDE_DIR...]\n", argv[0]);
        return 2;
    }
    char exe[PATH_MAX], source[PATH_MAX], path[PATH_MAX], err[1200], symbol[1024], held[4096];
    if (!realpath("/proc/self/exe", exe) || !realpath(argv[2], source)) {
        perror(argv[2]);
        return 2;
    }
    /* <build>/backends/hip-entry-*: the build folder, which holds hip-nv/ on NVIDIA. */
    const char *build = dirname(dirname(exe));
    struct hb_kernel_spec s = {.name = "hip-entry",
                               .lang = "hip",
                               .source_path = source,
                               .entry = argv[3],
                               .build_dir = build,
                               .block = {1, 1, 1},
                               .user = 1};
    s.n_includes = argc - 4, s.includes = (const char *const *)argv + 4;
    if (hip_rtc_compile(&s, argv[1], path, sizeof path, err, sizeof err) != HB_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (!hip_rtc_symbol(s.entry, path, symbol, sizeof symbol, held, sizeof held)) {
        fprintf(stderr, "%s holds no kernel %s; it holds: %s\n", path, s.entry, held[0] ? held : "(none readable)");
        return 1;
    }
    printf("%s\n", symbol);
    return 0;
}
