/* SPDX-License-Identifier: MIT */
/* interrupt.c: see interrupt.h. A handler may only write(2): the JSON end record an early
 * signal needs is made in advance, and no atexit handler runs, so the handler kills the
 * children itself (a reference's compiler, a reference) and removes the references' build
 * folder. */
#include "interrupt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "cref.h"
#include "jsonl.h"

volatile sig_atomic_t intr_signal;

static volatile sig_atomic_t intr_started;
static int intr_json_fd = -1;
static char intr_json_end[96];

static void intr_on_signal(int sig)
{
    if (intr_started) {
        intr_signal = sig;
        return;
    }
    char msg[] = "\nharness: interrupted by signal NN before the first result: the reports hold none\n";
    char *nn = strstr(msg, "NN");
    nn[0] = (char)('0' + sig / 10 % 10), nn[1] = (char)('0' + sig % 10);
    child_kill_children_now();
    cref_remove_now();
    if (intr_json_fd >= 0 && write(intr_json_fd, intr_json_end, strlen(intr_json_end)) < 0)
        _exit(128 + sig);
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
        _exit(128 + sig);
    _exit(128 + sig);
}

void intr_catch(void)
{
    intr_started = 0;
    intr_json_fd = -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = intr_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void intr_json(FILE *json)
{
    FILE *end = fmemopen(intr_json_end, sizeof intr_json_end, "w");
    if (end)
        jsonl_write_end(end, 0, 1), fclose(end);
    intr_json_fd = fileno(json);
}

void intr_run_started(void) { intr_started = 1; }
