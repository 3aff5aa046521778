/* SPDX-License-Identifier: MIT */
/* sim_volatile_main.c: sim_elf_calls_volatile for backend.mk, which builds a shipped
 * kernel's unchecked copy only when its object makes no volatile access.
 *   sim-volatile OBJECT: exit 0 it does, 1 it does not, 2 unreadable (the message on stderr). */
#include <stdio.h>

#include "sim_build.h"

int main(int argc, char **argv)
{
    char err[512] = "usage: sim-volatile OBJECT";
    int found = argc == 2 ? sim_elf_calls_volatile(argv[1], err, sizeof err) : -1;
    if (found < 0)
        fprintf(stderr, "sim-volatile: %s\n", err);
    return found < 0 ? 2 : found ? 0 : 1;
}
