/* SPDX-License-Identifier: MIT */
/* rtc.h: run-time kernel compiles shared by every backend, so users' own kernels run
 * without rebuilding the harness: may the prebuilt product serve this source (only the very
 * file it was built from), where does a run-time product go (a per-user cache named by the
 * SHA-256 of what the build reads, the preprocessed source included, each product sealed:
 * rtc_cache.c), running a compiler without a shell, and naming the binary that ran.
 * It knows no GPU API and never decides a verdict: callers map failures to their status. */
#ifndef HB_RTC_H
#define HB_RTC_H

#include <stddef.h>

#include "backend.h"
#include "sha256.h"

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

/* The run-time compile cache (rtc_cache.c). Its folder for a backend: $XDG_CACHE_HOME/
 * gpu-harness/<backend>, else ~/.cache/gpu-harness/<backend> when HOME is a folder (a missing
 * HOME is never made), else $TMPDIR/gpu-harness-UID/<backend> (/tmp without a TMPDIR folder);
 * build_dir/kernels/runtime/<backend> when that cannot be created. One that is a symbolic
 * link, owned by another user or writable by others is refused. 0, or -1 with err. */
int rtc_cache_dir(const struct hb_kernel_spec *s, const char *backend, char *dir, size_t len, char *err, size_t errlen);

/* dir/<first 32 hex digits of digest><ext> into path: 1 when that product is there and sound (rtc_product_ok), 0
 * when it must be built, -1 when the name does not fit. */
int rtc_cache_name(const char *dir, const unsigned char digest[SHA256_BYTES], const char *ext, char *path, size_t len);

/* The most words of a compile command rtc_cache_lookup takes. */
#define RTC_MAX_WORDS 64

/* The product of s in the cache, named by the SHA-256 of what its build reads: the source's
 * real path and bytes, key (rtc_key), the compiler's file and this backend's own build (a
 * rebuilt backend never reuses stale objects), and the source preprocessed by the compile's
 * own command words[0..n) (compiler, flags, target, the source's -I and -D) with "-E SOURCE
 * -o OUT": every header it includes, through the same search path and macros, so a header
 * edited, or one that appears later (`__has_include`), names another product. The
 * preprocessing runs in a scratch folder of the cache. Returns as rtc_cache_name; 2 when the
 * preprocessor failed, as the compile would (err: its first error and the kept log's path);
 * -1 with err. */
int rtc_cache_lookup(const struct hb_kernel_spec *s, const char *backend, char *const *words, int n, const char *key,
                     const char *ext, char *path, size_t len, char *err, size_t errlen);

/* Whether a cached product may be used: a regular file (no link), ours, writable by no one
 * else, whose SHA-256 is the one its seal (<path>.sha256, ours too) recorded when it was
 * built. Anything else (an empty or damaged object, a planted one) is built again. */
int rtc_product_ok(const char *path);

/* Seals the finished product tmp (its SHA-256 into <final>.sha256, group and other write
 * taken away) and renames it to final, seal first. 0, or -1 with err. */
int rtc_seal(const char *tmp, const char *final, char *err, size_t errlen);

/* One build's scratch folder, <dir>/tmp.<host>.<pid>.XXXXXX, into out, made after removing
 * those of processes on this host that no longer run: a build killed by --timeout leaves its
 * folder, the next build anywhere in the cache removes it. 0, or -1 with err. */
int rtc_scratch_open(const char *dir, char *out, size_t len, char *err, size_t errlen);
/* Removes the scratch folder and every file in it ("" : nothing). */
void rtc_scratch_close(const char *scratch);
/* Moves file (a log to keep) out of a scratch folder to a new <path>.XXXXXX<suffix>, named in
 * out. 0, or -1 (out ""). */
int rtc_keep(const char *file, const char *path, const char *suffix, char *out, size_t len);

/* Creates a new empty file "<path>.XXXXXX<suffix>" (mkstemps: O_EXCL, mode 0600, a name no
 * one can predict) and names it in out: run-time compiles write only such files before
 * renaming their product into place. 0, or -1 with err. */
int rtc_temp(const char *path, const char *suffix, char *out, size_t len, char *err, size_t errlen);

/* Whether tool can be run: a path naming an executable, or a bare name found on PATH. */
int rtc_have(const char *tool);

/* Runs argv (argv[0] a path, or a name looked up in PATH) with stdout and stderr appended to
 * log, which is opened without following a symbolic link. 0: exit status 0. 1: the compiler
 * failed, err holds its first error line. -1: it could not be run at all, err says why. */
int rtc_run(char *const argv[], const char *log, char *err, size_t errlen);

/* Compiles into a cache path: argv[out_arg] (a placeholder) becomes a temporary in a scratch
 * folder (rtc_scratch_open) that is sealed and renamed to `path` on success, so children
 * compiling the same kernel never see a partial object. The compiler's output goes to a log
 * there, dropped on success and kept beside path (its name in err) on failure. Returns as
 * rtc_run. */
int rtc_build(char *argv[], int out_arg, const char *path, char *err, size_t errlen);

/* The first line of text that reports an error as compilers write them (": error:", "fatal
 * error:", nvcc's "error :"; not a path that holds the word), else its last line, trimmed, into
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

/* The inputs of a run-time product's cache key besides the source (rtc_cache_lookup): the n
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
