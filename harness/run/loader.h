/* SPDX-License-Identifier: MIT */
/* loader.h: finds backends by name and loads them. A backend is known when the source tree
 * has harness/backends/<name>/backend.mk and built when build/backends/hb_<name>.so
 * exists; nothing here lists them by hand. Loading happens only in child processes. */
#ifndef HB_LOADER_H
#define HB_LOADER_H

#include "backend.h"
#include "util.h"

#define LDR_MAX 16
/* Names of the known backends, sorted; returns the count. */
int ldr_known(char names[LDR_MAX][16]);
int ldr_is_known(const char *name);
/* 0 when name is a known backend, else -1 with "unknown backend 'NAME' (known: ...)" in err,
 * or, when no backend is known at all, ldr_check_any's words. */
int ldr_check_known(const char *name, struct hb_err *err);
/* 0 when some backend is known, else -1 naming the folder that held none (a wrong HB_ROOT or
 * HB_BUILD_DIR). */
int ldr_check_any(struct hb_err *err);
int ldr_is_built(const char *name);
/* dlopens the backend and returns its table, upgraded (ldr_upgrade). */
const struct hb_backend *ldr_open(const char *name, struct hb_err *err);
/* One upgrade at load: a table of an older ABI is copied into today's layout with the fields
 * it lacks zeroed (NULL: the core's fallbacks) and its capabilities filled in, so nothing
 * else reads be->abi. Today's table is returned as it is; an older one is copied into one
 * static slot (a process loads one backend). */
const struct hb_backend *ldr_upgrade(const struct hb_backend *be);

#endif
