/* rtc.h: run-time kernel compiles shared by every backend, so users' own
 * kernels run without rebuilding the harness: is the prebuilt product current, where does a
 * run-time product go (a per-user cache), and running a compiler without a shell.
 * It knows no GPU API and never decides a verdict: callers map failures to their status. */
#ifndef HB_RTC_H
#define HB_RTC_H

#include <stddef.h>

#include "backend.h"

/* build_dir/kernels/<sub>/<stem of source><ext> into path. Returns 1 when it exists and is
 * at least as new as the source, 0 when a run-time compile is needed, -1 on error (err). */
int rtc_prebuilt(const struct hb_kernel_spec *s, const char *sub, const char *ext, char *path,
                 size_t len, char *err, size_t errlen);

/* <cache>/<backend>/<hash><ext>, the hash over the source path, its mtime, key (the compile
 * flags and target) and this backend's own build, so a rebuilt backend never reuses stale
 * objects. cache is $XDG_CACHE_HOME/gpu-harness, ~/.cache/gpu-harness, or
 * build_dir/kernels/runtime when neither is writable. Returns 1 when the object is already
 * there, 0 when it must be compiled, -1 on error (err). */
int rtc_cache_path(const struct hb_kernel_spec *s, const char *backend, const char *key,
                   const char *ext, char *path, size_t len, char *err, size_t errlen);

/* Runs argv (argv[0] a path, or a name looked up in PATH) with stdout and stderr into log.
 * 0: exit status 0. 1: the compiler failed, err holds its first error line. -1: it could
 * not be run at all, err says why. */
int rtc_run(char *const argv[], const char *log, char *err, size_t errlen);

/* Compiles into a cache path: argv[out_arg] (a placeholder) becomes a per-process temporary
 * that is renamed to `path` on success, so children compiling the same kernel never see a
 * partial object. The compiler's output goes to <path>.<pid>.log, removed on success and
 * kept (its name in err) on failure. Returns as rtc_run. */
int rtc_build(char *argv[], int out_arg, const char *path, char *err, size_t errlen);

/* The first line of text that says "error" (else its first line), trimmed, into out. */
void rtc_first_error(const char *text, char *out, size_t len);

/* Splits a space-separated flag string (a build-time -D value) into argv slots: copies it
 * into buf, stores the words and returns their count; -1 when buf or max is too small. */
int rtc_split(const char *flags, char *buf, size_t buflen, char **words, int max);

#endif
