/* SPDX-License-Identifier: MIT */
/* sim_rewrite_main.c: sim_rewrite as a filter, stdin to stdout, for backend.mk's builds of the
 * shipped kernels (run-time builds call it in sim_build.c). */
#include "sim_rewrite.h"

int main(void) { return sim_rewrite(stdin, stdout) ? 1 : 0; }
