/* SPDX-License-Identifier: MIT */
/* probe.h: asks a backend, from a child process, which devices and widths it has. The
 * parent never loads a backend itself: a driver that crashes or hangs while listing devices
 * costs one message, not the run. */
#ifndef HB_PROBE_H
#define HB_PROBE_H

#include <stddef.h>

#include "backend.h"

#define MAX_DEVICES 16

/* What a probe child reports about one backend. */
struct probe {
    char name[16];
    int built;
    int count; /* devices; -1 when the backend could not list any */
    char langs[64];
    char vendor[32];
    char platform[32]; /* the API's platform when not the obvious one ("nvidia" for HIP) */
    unsigned caps;     /* the backend's HB_CAP_* bits */
    char err[512];
    struct hb_device_info dev[MAX_DEVICES];
};

/* Fills p for backend `name` (not built, no device, or its devices). */
void prb_probe(const char *name, struct probe *p);

#endif
