/* SPDX-License-Identifier: MIT */
/* progress.c: how far a long run is. On a terminal, one status line at the bottom, redrawn in
 * place a few times a second (group k of N, results per second, ETA from the groups' estimated
 * work, failures so far; the failure count in red unless NO_COLOR is set); the caller clears
 * it before printing anything else. Not on a terminal (a CI log), a plain line every 30 s
 * instead, none with --quiet. It decides nothing and touches no report. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runner.h"

#define PROG_REDRAW_MS 250
#define PROG_PLAIN_MS 30000

static struct {
    int active, tty, color, quiet, groups, drawn;
    long failures; /* as last drawn: a new failure is drawn at once */
    double total_cost, t0, last;
} prog;

void prog_start(int quiet, double total_cost, int groups)
{
    prog.active = 1;
    prog.tty = isatty(STDOUT_FILENO);
    const char *no_color = getenv("NO_COLOR");
    prog.color = prog.tty && !(no_color && *no_color);
    prog.quiet = quiet;
    prog.groups = groups;
    prog.total_cost = total_cost;
    /* A terminal gets the line at once; a log its first line after PROG_PLAIN_MS. */
    prog.t0 = now_ms();
    prog.last = prog.tty ? 0 : prog.t0;
    prog.drawn = 0;
    prog.failures = 0;
}

/* "1m05s" */
static void prog_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

void prog_update(int groups_done, double cost_done, long results, long failures)
{
    double now = now_ms();
    int due = now - prog.last >= (prog.tty ? PROG_REDRAW_MS : PROG_PLAIN_MS) || (prog.tty && failures != prog.failures);
    if (!prog.active || !due || (!prog.tty && prog.quiet))
        return;
    prog.last = now;
    prog.failures = failures;
    double elapsed = (now - prog.t0) / 1e3;
    char eta[32] = "?";
    if (cost_done > 0 && prog.total_cost > cost_done)
        prog_duration(elapsed * (prog.total_cost - cost_done) / cost_done, eta, sizeof eta);
    else if (prog.total_cost > 0 && cost_done >= prog.total_cost)
        snprintf(eta, sizeof eta, "0s");
    const char *red = prog.color && failures ? "\033[31m" : "", *plain = prog.color && failures ? "\033[0m" : "";
    if (prog.tty)
        printf("\r\033[K");
    printf("%sgroup %d of %d, %.1f results/s, ETA %s, %s%ld failures%s", prog.tty ? "" : "progress: ", groups_done,
           prog.groups, elapsed > 0 ? (double)results / elapsed : 0.0, eta, red, failures, plain);
    if (!prog.tty)
        printf("\n");
    prog.drawn = prog.tty;
    fflush(stdout);
}

void prog_clear(void)
{
    if (!prog.drawn)
        return;
    printf("\r\033[K");
    fflush(stdout);
    prog.drawn = 0;
}

void prog_end(void)
{
    prog_clear();
    prog.active = 0;
}
