/* SPDX-License-Identifier: MIT */
/* util.h: small helpers shared by the core: errors with a location, clocks, paths,
 * string parsing. Deliberately nothing about GPUs, cases or kernels. */
#ifndef HB_UTIL_H
#define HB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An error message that travels up to main, which alone decides the exit code. */
struct hb_err {
    char msg[1024];
};
void err_set(struct hb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Allocation failures end the run with exit 2 and a message: nothing can be judged without memory. */
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
/* p, room for n + 1 elements of elem bytes: doubles *cap (from 16) when n has reached it. */
void *xgrow(void *p, int n, int *cap, size_t elem);
double now_ms(void);

/* Directory holding the running executable (build/: backends and kernel products), or
 * $HB_BUILD_DIR; and the repository root above it (kernel sources, cases), or $HB_ROOT. An
 * installed harness (make install) is PREFIX/lib/gpu-harness/harness and its root
 * PREFIX/share/gpu-harness, exported as $HB_ROOT for the backends. */
const char *path_exe_dir(void);
const char *path_root_dir(void);
/* Joins dir and rel unless rel is absolute; the result is malloc'd. */
char *path_join(const char *dir, const char *rel);
/* Folder part of a path, malloc'd ("." when there is none). */
char *path_dirname(const char *path);

/* Strict number parsing: the whole string must be the number. */
int parse_long(const char *s, long *out);
int parse_u64(const char *s, uint64_t *out);

/* FNV-1a over n bytes: stable across runs and machines (seeds, output hashes, indexes). */
uint64_t hb_fnv1a(const void *p, size_t n);
/* The same hash going on from h (a hash so far): hb_fnv1a of several pieces in a row. */
uint64_t hb_fnv1a_from(uint64_t h, const void *p, size_t n);

/* Trims leading and trailing white space in place and returns the start. */
char *str_trim(char *s);
/* Levenshtein distance of a and b (byte edits), for "did you mean" hints; counts past `cap`
 * are reported as cap + 1, and strings longer than 63 bytes as cap + 1. */
int str_distance(const char *a, const char *b, int cap);
/* The one of names[0..n) closest to s within the distance a typo makes (a third of s's
 * length, at least 1, at most 3), or NULL. */
const char *str_closest(const char *s, const char *const *names, int n);

/* A report's output file: "-" is the process's standard output, taken for the report alone
 * (what a person reads moves to standard error, so `--json - | jq` reads JSON only); any
 * other path is created. NULL with errno when it cannot be. */
FILE *out_open(const char *path);

#endif
