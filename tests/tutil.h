/* SPDX-License-Identifier: MIT */
/* tutil.h: what every unit test shares: a scratch folder per test, writing files into it,
 * and the Check runner main. Header-only so each suite stays one file plus this (and a
 * fixture header where two files of one module share setup); no assertions of its own. */
#ifndef HB_TUTIL_H
#define HB_TUTIL_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Scratch folder; t_rmtree removes it at the end of the test. */
static inline char *t_tmpdir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/hbunit.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

/* Writes `len` bytes of text to dir/name and returns the path (malloc'd). */
static inline char *t_write_n(const char *dir, const char *name, const char *text, size_t len)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    ck_assert_ptr_nonnull(path);
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static inline char *t_write(const char *dir, const char *name, const char *text)
{
    return t_write_n(dir, name, text, strlen(text));
}

static inline int t_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static inline void t_rmtree(const char *dir) { nftw(dir, t_rm_one, 8, FTW_DEPTH | FTW_PHYS); }

/* Reads a whole file into a malloc'd, NUL-terminated string. */
static inline char *t_slurp(FILE *f)
{
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = calloc((size_t)n + 1, 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    return buf;
}

static inline char *t_slurp_path(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *s = t_slurp(f);
    fclose(f);
    return s;
}

/* Runs one suite; the exit status is the number of failed tests (capped). */
static inline int t_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
