/* SPDX-License-Identifier: MIT */
/* test_manifest.c: kernel manifests (manifest.c): a valid file parsed into every field,
 * discovery order, and the questions the runner asks: grid per case, widths, expected-bad,
 * which cases a kernel runs (the malformed forms are test_manifest_errors.c's). */
#include <string.h>
#include <sys/stat.h>

#include "manifest.h"
#include "manifest_fixture.h"
#include "op_fixture.h"
#include "tutil.h"

static const char VALID[] = "# two kernels\n"                     /* 1 */
                            "[sg]\n"                              /* 2 */
                            "op = sgemm\n"                        /* 3 */
                            "lang = cuda\n"                       /* 4 */
                            "source = sg.cu\n"                    /* 5 */
                            "entry = sgemm_tiled\n"               /* 6 */
                            "block = 16 16\n"                     /* 7 */
                            "grid = N/16 M/16 1\n"                /* 8 */
                            "widths = 16 32\n"                    /* 9 */
                            "expect = pass\n"                     /* 10 */
                            "note = tiled, 16x16   # a comment\n" /* 11 */
                            "cases = sq_*\n"                      /* 12 */
                            "\n"                                  /* 13 */
                            "[rd]\n"                              /* 14 */
                            "  op=reduce\n"                       /* 15 */
                            "lang = glsl\n"                       /* 16 */
                            "source = sub/rd.comp\n"              /* 17 */
                            "entry = main\n"                      /* 18 */
                            "block = 256\n"                       /* 19 */
                            "grid = n/1024\n"                     /* 20 */
                            "chunk = 1024\n"                      /* 21 */
                            "expect = oob+wrong\n";               /* 22 */

static struct hb_case mk(enum hb_op op, const char *name, long M, long N, long K, long n)
{
    struct hb_case c;
    memset(&c, 0, sizeof c);
    c.op = op;
    if (op == OP_REDUCE)
        T_SET(&c, "n", n);
    else
        T_SET(&c, "M", M), T_SET(&c, "N", N), T_SET(&c, "K", K);
    snprintf(c.name, sizeof c.name, "%s", name);
    return c;
}

static void parse_valid(struct kern_set *set)
{
    char *path = t_write(dir, "v.manifest", VALID);
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, set, &err) == 0, "%s", err.msg);
    free(path);
}

START_TEST(valid_manifest_fills_every_field)
{
    struct kern_set set = {0};
    parse_valid(&set);
    ck_assert_int_eq(set.n, 2);
    const struct kern_desc *k = &set.k[0];
    ck_assert_str_eq(k->name, "sg");
    ck_assert_int_eq(k->op, OP_SGEMM);
    ck_assert_str_eq(k->lang, "cuda");
    char want[256];
    snprintf(want, sizeof want, "%s/sg.cu", dir);
    ck_assert_str_eq(k->source, want);
    ck_assert_str_eq(k->entry, "sgemm_tiled");
    ck_assert_uint_eq(k->block[0], 16);
    ck_assert_uint_eq(k->block[1], 16);
    ck_assert_uint_eq(k->block[2], 1);
    ck_assert_int_eq(k->grid[0].var, 'N');
    ck_assert_int_eq(k->grid[0].value, 16);
    ck_assert_int_eq(k->grid[1].var, 'M');
    ck_assert_int_eq(k->grid[1].value, 16);
    ck_assert_int_eq(k->grid[2].var, 0);
    ck_assert_int_eq(k->grid[2].value, 1);
    ck_assert_int_eq(k->chunk, 0);
    ck_assert_int_eq(k->any_width, 0);
    ck_assert_int_eq(k->n_widths, 2);
    ck_assert_int_eq(k->widths[0], 16);
    ck_assert_int_eq(k->widths[1], 32);
    ck_assert_uint_eq(k->expect, 0);
    ck_assert_str_eq(k->note, "tiled, 16x16");
    ck_assert_str_eq(k->cases, "sq_*");
    ck_assert_int_eq(k->line, 2);
    const struct kern_desc *r = &set.k[1];
    ck_assert_str_eq(r->name, "rd");
    ck_assert_int_eq(r->op, OP_REDUCE);
    ck_assert_str_eq(r->lang, "glsl");
    snprintf(want, sizeof want, "%s/sub/rd.comp", dir);
    ck_assert_str_eq(r->source, want);
    ck_assert_uint_eq(r->block[0], 256);
    ck_assert_uint_eq(r->block[1], 1);
    ck_assert_int_eq(r->grid[0].var, 'n');
    ck_assert_int_eq(r->grid[0].value, 1024);
    ck_assert_int_eq(r->grid[1].var, 0);
    ck_assert_int_eq(r->chunk, 1024);
    ck_assert_int_eq(r->any_width, 1);
    ck_assert_uint_eq(r->expect, CLS_OOB | CLS_WRONG);
    ck_assert_ptr_null(r->note);
    ck_assert_ptr_null(r->cases);
    ck_assert_int_eq(r->line, 14);
    kern_set_free(&set);
    ck_assert_ptr_null(set.k);
}
END_TEST

/* A manifest named by a relative path still gives absolute sources: backends compile from
 * other folders (the CUDA backend's wrapper lives in the compile cache). */
START_TEST(relative_manifest_gives_absolute_sources)
{
    char *path = t_write(dir, "v.manifest", VALID);
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file("v.manifest", &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_int_eq(set.k[0].source[0], '/');
    ck_assert_ptr_nonnull(strstr(set.k[0].source, "/sg.cu"));
    kern_set_free(&set);
    free(path);
}
END_TEST

/* includes and defines reach load() as the backends' -I and -D words take them: folders made
 * absolute from the manifest's, in order; macros as written. */
START_TEST(includes_and_defines_reach_the_spec)
{
    char *path = t_write(dir, "f.manifest",
                         "[k]\nop = sgemm\nlang = cuda\nsource = sg.cu\nentry = k\nblock = 16 16\n"
                         "grid = N/16 M/16\nincludes = sub .\ndefines = TILE=16 ROW_MAJOR\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == 0, "%s", err.msg);
    struct hb_kernel_spec spec;
    kern_spec(&set.k[0], "/b", &spec);
    char sub[256];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(spec.n_includes, 2);
    ck_assert_str_eq(spec.includes[0], sub);
    ck_assert_str_eq(spec.includes[1], dir);
    ck_assert_int_eq(spec.n_defines, 2);
    ck_assert_str_eq(spec.defines[0], "TILE=16");
    ck_assert_str_eq(spec.defines[1], "ROW_MAJOR");
    kern_set_free(&set);
    free(path);
}
END_TEST

/* The kernels of one file and flags know each other's entries (ABI 8), each once, in one
 * order, so a backend compiles the file once for all of them; other defines are another build. */
START_TEST(siblings_are_the_entries_of_one_build)
{
    const char *k = "op = reduce\nlang = cuda\nsource = sg.cu\nblock = 256\ngrid = n/256\nchunk = 256\n";
    char text[1024];
    snprintf(text, sizeof text,
             "[a]\n%sentry = r<1>\n[b]\n%sentry = r<2>\n[c]\n%sentry = r<1>\n[d]\n%sentry = r<1>\n"
             "defines = X\n",
             k, k, k, k);
    char *path = t_write(dir, "s.manifest", text);
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == 0, "%s", err.msg);
    kern_link_siblings(&set);
    struct hb_kernel_spec spec;
    for (int i = 0; i < 3; i++) {
        kern_spec(&set.k[i], "/b", &spec);
        ck_assert_int_eq(spec.n_siblings, 2);
        ck_assert_str_eq(spec.siblings[0], "r<1>");
        ck_assert_str_eq(spec.siblings[1], "r<2>");
    }
    kern_spec(&set.k[3], "/b", &spec);
    ck_assert_int_eq(spec.n_siblings, 1);
    ck_assert_str_eq(spec.siblings[0], "r<1>");
    kern_set_free(&set);
    free(path);
}
END_TEST

START_TEST(grid_is_a_ceiling_per_dimension)
{
    struct kern_set set = {0};
    parse_valid(&set);
    unsigned g[3];
    struct hb_err err = {{0}};
    struct hb_case c = mk(OP_SGEMM, "sq_1", 33, 17, 5, 0);
    ck_assert_int_eq(kern_grid(&set.k[0], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 2);
    ck_assert_uint_eq(g[1], 3);
    ck_assert_uint_eq(g[2], 1);
    c = mk(OP_SGEMM, "sq_2", 16, 32, 5, 0);
    ck_assert_int_eq(kern_grid(&set.k[0], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 2);
    ck_assert_uint_eq(g[1], 1);
    kern_set_free(&set);
}
END_TEST

/* An empty output gives an empty grid, which the testbed does not launch. */
START_TEST(empty_sgemm_gets_an_empty_grid)
{
    struct kern_set set = {0};
    parse_valid(&set);
    unsigned g[3];
    struct hb_err err = {{0}};
    struct hb_case c = mk(OP_SGEMM, "sq_0", 0, 0, 0, 0);
    ck_assert_int_eq(kern_grid(&set.k[0], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 0);
    ck_assert_uint_eq(g[1], 0);
    ck_assert_uint_eq(g[2], 1);
    kern_set_free(&set);
}
END_TEST

START_TEST(reduce_grid_covers_every_chunk)
{
    struct kern_set set = {0};
    parse_valid(&set);
    unsigned g[3];
    struct hb_err err = {{0}};
    struct hb_case c = mk(OP_REDUCE, "r", 0, 0, 0, 1000003);
    ck_assert_int_eq(kern_grid(&set.k[1], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 977);
    ck_assert_uint_eq(g[1], 1);
    T_SET(&c, "n", 1024);
    ck_assert_int_eq(kern_grid(&set.k[1], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 1);
    T_SET(&c, "n", 0);
    ck_assert_int_eq(kern_grid(&set.k[1], &c, g, &err), 0);
    ck_assert_uint_eq(g[0], 0);
    kern_set_free(&set);
}
END_TEST

START_TEST(grid_over_int_max_is_an_error)
{
    char *path = t_write(dir, "big.manifest",
                         "[big]\nop = reduce\nlang = cuda\nsource = sg.cu\nentry = e\nblock = 32\n"
                         "grid = n 4294967296\nchunk = 1\n");
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &set, &err) == 0, "%s", err.msg);
    struct hb_case c = mk(OP_REDUCE, "r", 0, 0, 0, 5);
    unsigned g[3];
    ck_assert_int_eq(kern_grid(&set.k[0], &c, g, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "big"));
    kern_set_free(&set);
    free(path);
}
END_TEST

START_TEST(widths_decide_written_for_and_expected_bad)
{
    struct kern_set set = {0};
    parse_valid(&set);
    const struct kern_desc *sg = &set.k[0], *rd = &set.k[1];
    ck_assert(kern_written_for(sg, 16));
    ck_assert(kern_written_for(sg, 32));
    ck_assert(!kern_written_for(sg, 8));
    ck_assert(!kern_written_for(sg, 64));
    ck_assert(!kern_expected_bad(sg, 32));
    ck_assert(kern_expected_bad(sg, 64));
    ck_assert(kern_written_for(rd, 4));
    ck_assert(kern_written_for(rd, 64));
    /* A canary is expected bad at every width. */
    ck_assert(kern_expected_bad(rd, 32));
    char buf[64];
    kern_widths_str(sg, buf, sizeof buf);
    ck_assert_str_eq(buf, "16 32");
    kern_widths_str(rd, buf, sizeof buf);
    ck_assert_str_eq(buf, "any");
    kern_set_free(&set);
}
END_TEST

START_TEST(cases_glob_and_op_select_the_cases)
{
    struct kern_set set = {0};
    parse_valid(&set);
    struct hb_case sq = mk(OP_SGEMM, "sq_64", 64, 64, 64, 0);
    struct hb_case rect = mk(OP_SGEMM, "rect_64", 64, 1, 64, 0);
    struct hb_case red = mk(OP_REDUCE, "sq_red", 0, 0, 0, 64);
    ck_assert(kern_runs_case(&set.k[0], &sq));
    ck_assert(!kern_runs_case(&set.k[0], &rect));
    ck_assert(!kern_runs_case(&set.k[0], &red));
    ck_assert(kern_runs_case(&set.k[1], &red));
    ck_assert(!kern_runs_case(&set.k[1], &sq));
    kern_set_free(&set);
}
END_TEST

START_TEST(discover_reads_one_folder_down_in_name_order)
{
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/kern/b_lang", dir);
    snprintf(b, sizeof b, "%s/kern", dir);
    ck_assert_int_eq(mkdir(b, 0700), 0);
    ck_assert_int_eq(mkdir(a, 0700), 0);
    snprintf(b, sizeof b, "%s/kern/a_lang", dir);
    ck_assert_int_eq(mkdir(b, 0700), 0);
    free(t_write(a, "x.manifest",
                 "[from_b]\nop = reduce\nlang = glsl\nsource = ../../sg.cu\nentry = main\n"
                 "block = 64\ngrid = n/64\nchunk = 64\n"));
    free(t_write(b, "y.manifest",
                 "[from_a]\nop = sgemm\nlang = hip\nsource = ../../sg.cu\nentry = e\n"
                 "block = 8 8\ngrid = N/8 M/8\n"));
    free(t_write(b, "notes.txt", "not a manifest\n"));
    char top[128];
    snprintf(top, sizeof top, "%s/kern", dir);
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    ck_assert_msg(kern_discover(top, &set, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(set.n, 2);
    ck_assert_str_eq(set.k[0].name, "from_a");
    ck_assert_str_eq(set.k[1].name, "from_b");
    kern_set_free(&set);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("manifest");
    TCase *ok = tcase_create("valid");
    tcase_add_checked_fixture(ok, setup, teardown);
    tcase_add_test(ok, valid_manifest_fills_every_field);
    tcase_add_test(ok, relative_manifest_gives_absolute_sources);
    tcase_add_test(ok, includes_and_defines_reach_the_spec);
    tcase_add_test(ok, siblings_are_the_entries_of_one_build);
    tcase_add_test(ok, grid_is_a_ceiling_per_dimension);
    tcase_add_test(ok, empty_sgemm_gets_an_empty_grid);
    tcase_add_test(ok, reduce_grid_covers_every_chunk);
    tcase_add_test(ok, grid_over_int_max_is_an_error);
    tcase_add_test(ok, widths_decide_written_for_and_expected_bad);
    tcase_add_test(ok, cases_glob_and_op_select_the_cases);
    tcase_add_test(ok, discover_reads_one_folder_down_in_name_order);
    suite_add_tcase(s, ok);
    return s;
}

int main(void) { return t_run(suite()); }
