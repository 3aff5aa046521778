/* rtc.h: run-time kernel compiles shared by every backend, so users' own kernels run
 * without rebuilding the harness: may the prebuilt product serve this source (only the very
 * file it was built from), where does a run-time product go (a per-user cache keyed by the
 * source's content), running a compiler without a shell, and naming the binary that ran.
 * It knows no GPU API and never decides a verdict: callers map failures to their status. */
#ifndef HB_RTC_H
#define HB_RTC_H

#include <stddef.h>

#include "backend.h"

/* Whether s's source is one the project ships: its real path is
 * <root>/kernels/<folder>/<file name>, root being $HB_ROOT or build_dir/.., folder the
 * language's own (vulkan for glsl and spirv, else the language's name). */
int rtc_shipped(const struct hb_kernel_spec *s);

/* build_dir/kernels/<sub>/<stem of source><ext> into path. Returns 1 when the source is a
 * shipped one (rtc_shipped) and that product is at least as new as it, as make would judge:
 * then make built it from this very file. 0 when a run-time compile is needed (any other
 * file, whatever its name, a shipped one edited since, or one given includes or defines),
 * -1 on error (err). */
int rtc_prebuilt(const struct hb_kernel_spec *s, const char *sub, const char *ext, char *path, size_t len, char *err,
                 size_t errlen);

/* <cache>/<backend>/<hash><ext>, the hash over the source's real path and content (never its
 * time stamps), key (compiler, flags and target) and this backend's own build, so a rebuilt
 * backend never reuses stale objects. cache is $XDG_CACHE_HOME/gpu-harness,
 * ~/.cache/gpu-harness, or build_dir/kernels/runtime when neither can be created; a cache
 * folder that is a symbolic link, owned by another user or writable by others is refused (an
 * error). Returns 1 when the object is already there and every file its build recorded
 * (rtc_deps_save) is unchanged, 0 when it must be compiled, -1 on error (err). */
int rtc_cache_path(const struct hb_kernel_spec *s, const char *backend, const char *key, const char *ext, char *path,
                   size_t len, char *err, size_t errlen);

/* Records the files a build read, from a make-style depfile (gcc -MMD -MF), each with its
 * content hash, as "<path>.deps" next to the product: rtc_cache_path then rebuilds when one
 * of them (a header the source includes) has changed. Call it before renaming the product
 * into place. 0, or -1 with err. */
int rtc_deps_save(const char *path, const char *depfile, char *err, size_t errlen);

/* Creates a new empty file "<path>.XXXXXX<suffix>" (mkstemps: O_EXCL, mode 0600, a name no
 * one can predict) and names it in out: run-time compiles write only such files before
 * renaming their product into place. 0, or -1 with err. */
int rtc_temp(const char *path, const char *suffix, char *out, size_t len, char *err, size_t errlen);

/* Runs argv (argv[0] a path, or a name looked up in PATH) with stdout and stderr appended to
 * log, which is opened without following a symbolic link. 0: exit status 0. 1: the compiler
 * failed, err holds its first error line. -1: it could not be run at all, err says why. */
int rtc_run(char *const argv[], const char *log, char *err, size_t errlen);

/* Compiles into a cache path: argv[out_arg] (a placeholder) becomes a temporary (rtc_temp)
 * that is renamed to `path` on success, so children compiling the same kernel never see a
 * partial object. The compiler's output goes to a temporary log, removed on success and kept
 * (its name in err) on failure. Returns as rtc_run. */
int rtc_build(char *argv[], int out_arg, const char *path, char *err, size_t errlen);

/* The first line of text that says "error" in any case (else its first line), trimmed, into
 * out. */
void rtc_first_error(const char *text, char *out, size_t len);

/* The words every compiler of s's source is given first (ABI 7): -IDIR for each of its
 * includes, then -DNAME[=VALUE] for each of its defines, into argv (at most max), their text
 * in buf. Returns the count, or -1 when buf or max is too small. nvcc, NVRTC, hipcc, g++ and
 * glslc all take these spellings. */
int rtc_user_flags(const struct hb_kernel_spec *s, char *buf, size_t buflen, char **argv, int max);

/* A template-id entry (`gemm<128, 8>`) needs a translation unit that names it, so nvcc or hipcc
 * emits it: the source included unchanged plus one line taking the entry's address, written
 * as a new <obj>.XXXXXX<ext> (rtc_temp) next to the cache object obj. path receives that unit,
 * or the source itself when the entry is no template-id. 0, or -1 with err. The caller removes
 * a wrapper it made. */
int rtc_wrapper(const struct hb_kernel_spec *s, const char *obj, const char *ext, char *path, size_t len, char *err,
                size_t errlen);

/* The inputs of a run-time product's cache key besides the source (rtc_cache_path): the n
 * words of its command without source and output (compiler, flags, target, the source's -I
 * and -D), and a template-id entry, which its wrapper instantiates (rtc_wrapper). Any other
 * entry of the file is not an input: the kernels of one file share one compile. */
void rtc_key(const struct hb_kernel_spec *s, char *const *argv, int n, char *key, size_t len);

/* The first n words as one line, space-separated (cut at len): a cache key or a report's
 * compiler command. */
void rtc_join(char *const *words, int n, char *out, size_t len);

/* Splits a space-separated flag string (a build-time -D value) into argv slots: copies it
 * into buf, stores the words and returns their count; -1 when buf or max is too small. */
int rtc_split(const char *flags, char *buf, size_t buflen, char **words, int max);

/* One line naming what runs for s, for reports: "binary PATH (HOW); source SOURCE fnv1a64
 * HASH; built by TOOL" (TOOL: the compiler and its flags). 0, or -1 when the source cannot
 * be read (the line then says so). */
int rtc_describe(const struct hb_kernel_spec *s, const char *binary, const char *how, const char *tool, char *out,
                 size_t len);

#endif
