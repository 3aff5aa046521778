/* SPDX-License-Identifier: MIT */
/* sim_rewrite_main.c: sim_rewrite as a filter, stdin to stdout, for backend.mk's builds of the
 * shipped kernels (run-time builds call it in sim_build.c): `sim-rewrite` for the checked
 * build, `sim-rewrite --rolled` (innermost accumulator loops left to g++: sim_unroll.h) for
 * the unchecked copy. */
#include <stdio.h>
#include <string.h>

#include "sim_rewrite.h"

int main(int argc, char **argv)
{
    int rolled = argc == 2 && strcmp(argv[1], "--rolled") == 0;
    if (argc > 2 || (argc == 2 && !rolled)) {
        fprintf(stderr, "usage: sim-rewrite [--rolled] < SOURCE.ii > REWRITTEN.ii\n");
        return 2;
    }
    return sim_rewrite(stdin, stdout, rolled) ? 1 : 0;
}
