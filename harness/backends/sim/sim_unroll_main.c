/* sim_unroll_main.c: sim_unroll_rewrite as a filter, stdin to stdout, for backend.mk's
 * builds of the shipped kernels (run-time builds call it in sim_build.c). */
#include "sim_unroll.h"

int main(void) { return sim_unroll_rewrite(stdin, stdout) ? 1 : 0; }
