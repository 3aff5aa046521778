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
int ldr_is_built(const char *name);
const struct hb_backend *ldr_open(const char *name, struct hb_err *err);

#endif
