/* SPDX-License-Identifier: MIT */
/* trace.h: `run --trace FILE`, where a run's wall time went, as Chrome trace events (open the
 * file in Perfetto or chrome://tracing): the probe, when each case's data and references were
 * made and on which thread, and which worker ran which group (or part) from when to when.
 * The totals are in the timing line; this shows the order: what waited for what. Off unless
 * asked for; the parent process alone records (threads may, workers never do). */
#ifndef HB_TRACE_H
#define HB_TRACE_H

#include "util.h"

/* Tracks: the parent's own steps, then reference threads from TRACE_DATA_TRACK; workers use
 * their process ids. */
#define TRACE_MAIN_TRACK 0
#define TRACE_DATA_TRACK 1

/* Starts recording, times relative to t0_ms (now_ms()); the file is checked writable now and
 * written at trace_close. path NULL: nothing is recorded. 0, or -1 with err. */
int trace_open(const char *path, double t0_ms, struct hb_err *err);
int trace_on(void);
/* A track's name (printf's format), shown once beside its spans. */
void trace_track(int track, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* A span from start_ms to end_ms (now_ms() clock) on a track; detail may be NULL. */
void trace_span(int track, const char *category, const char *name, const char *detail, double start_ms, double end_ms);
/* Writes the file and stops recording: 0, or -1 with err. */
int trace_close(struct hb_err *err);

#endif
