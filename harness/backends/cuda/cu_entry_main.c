/* SPDX-License-Identifier: MIT */
/* cu_entry_main.c: `cuda-entry SM SOURCE ENTRY [INCLUDE_DIR...]` compiles SOURCE as the CUDA
 * backend compiles a user's kernel at run time with nvcc (cu_nvcc.c) for the architecture SM
 * (sm_90), into the same cache, with no GPU, and prints the symbol ENTRY as a manifest writes
 * it names in the cubin. For the tests, and for a user asking why an entry is not found. Exit
 * 0 found, 1 not (the kernels there are listed), 2 no build or bad usage. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code_object.h"
#include "cu_nvcc.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SM SOURCE ENTRY [INCLUDE_DIR...]\n", argv[0]);
        return 2;
    }
    static struct co_list kernels;
    char source[PATH_MAX], nvcc[1100], path[PATH_MAX], origin[8192], err[2048], symbol[1024], held[4096];
    if (!realpath(argv[2], source)) {
        perror(argv[2]);
        return 2;
    }
    struct hb_kernel_spec s = {
        .name = "cuda-entry", .lang = "cuda", .source_path = source, .entry = argv[3], .block = {1, 1, 1}, .user = 1};
    s.n_includes = argc - 4, s.includes = (const char *const *)argv + 4;
    if (!cu_nvcc_find(nvcc, sizeof nvcc)) {
        fprintf(stderr, "no nvcc in $CUDA_HOME/bin or %s/bin\n", CU_CUDA_HOME);
        return 2;
    }
    if (cu_nvcc_compile(&s, nvcc, argv[1], path, sizeof path, origin, sizeof origin, err, sizeof err) != HB_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (co_kernels(path, &kernels, err, sizeof err) != 0 ||
        !co_find(&kernels, s.entry, symbol, sizeof symbol, held, sizeof held)) {
        fprintf(stderr, "%s holds no kernel %s; it holds: %s\n", path, s.entry, held[0] ? held : "(none readable)");
        return 1;
    }
    printf("%s\n", symbol);
    return 0;
}
