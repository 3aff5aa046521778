/* SPDX-License-Identifier: MIT */
/* interrupt.h: what SIGINT and SIGTERM do to a run. Before the first group nothing is worth
 * finishing: the handler ends the process at once, leaving valid reports. From then on it only
 * records the signal in intr_signal, which every part of the run polls: the run stops, keeps
 * what arrived and writes it. It decides no exit code (run.c does, from intr_signal). */
#ifndef HB_INTERRUPT_H
#define HB_INTERRUPT_H

#include <signal.h>
#include <stdio.h>

/* The signal that stopped the run, 0 while none has. */
extern volatile sig_atomic_t intr_signal;

/* Installs the handler for a run about to start: a signal now ends the process. */
void intr_catch(void);
/* The run's JSON lines file, open: an early signal gives it its end record. */
void intr_json(FILE *json);
/* The first group is about to run: a signal from now on stops the run instead. */
void intr_run_started(void);

#endif
