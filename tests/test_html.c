/* SPDX-License-Identifier: MIT */
/* test_html.c: the HTML page (html.c, html_map.c): one self-contained document, the overview
 * matrix first with links that land, one SVG heat map per failing case that has output (none
 * for a crash), expected failures folded without maps, cells drawn without gaps for small
 * outputs and not at all past the end of a short reduction grid, labels that fit, the
 * special heat kinds in their colours, the reproducer, and all text escaped and valid UTF-8. */
#include <string.h>

#include "html.h"
#include "op_fixture.h"
#include "text.h"
#include "tutil.h"

static struct rep_result rec(const char *kernel, const char *case_name, enum hb_verdict v)
{
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "vulkan");
    snprintf(r.device, sizeof r.device, "<GPU & co>");
    snprintf(r.driver, sizeof r.driver, "1.0");
    snprintf(r.lang, sizeof r.lang, "glsl");
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.case_name, sizeof r.case_name, "%s", case_name);
    snprintf(r.dist, sizeof r.dist, "uniform");
    snprintf(r.why, sizeof r.why, "wrong: a<b");
    r.width = 8;
    r.op = OP_SGEMM;
    r.verdict = v;
    T_SET(&r, "M", 127), T_SET(&r, "N", 128), T_SET(&r, "K", 129);
    cmp_init(&r.cmp);
    r.cmp.elements = 127 * 128;
    r.cmp.threshold = 22.7;
    return r;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static char *page(const struct rep_result *r, int n)
{
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, NULL, NULL, NULL, &err), 0);
    for (int i = 0; i < n; i++)
        rep_add(&s, &r[i]);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    html_write(f, &s);
    char *text = t_slurp(f);
    fclose(f);
    rep_close(&s);
    return text;
}

START_TEST(one_map_per_failing_case_and_text_escaped)
{
    struct rep_result r[6] = {rec("sgemm_tiled", "edge_127", V_FAIL), rec("sgemm_tiled", "exact_129", V_FAIL),
                              rec("reduce_warp32", "big", V_XFAIL),   rec("sgemm_naive", "edge_127", V_PASS),
                              rec("fault_crash", "edge_15", V_ERROR), rec("sgemm_naive", "*", V_SKIP)};
    /* Column stripes every 16 columns, as a tile-edge bug leaves them. */
    for (int i = 0; i < CMP_HEAT; i++)
        for (int j = 3; j < CMP_HEAT; j += 4)
            r[0].cmp.heat[i * CMP_HEAT + j] = 40;
    r[1].cmp.heat[0] = CMP_HEAT_NAN;
    r[1].cmp.heat[1] = CMP_HEAT_UNWRITTEN;
    r[2].op = OP_REDUCE, r[2].n_sizes = 0;
    T_SET(&r[2], "n", 1000003);
    r[2].cmp.elements = 977, r[2].cmp.total_rel_err = 1.31;
    r[2].cmp.heat[5] = 100;
    r[4].cmp.elements = 0; /* the child crashed: nothing to map */
    snprintf(r[4].why, sizeof r[4].why, "child died: Segmentation fault");
    r[5].group_row = 1;
    snprintf(r[5].why, sizeof r[5].why, "width <8> not offered");
    char *text = page(r, 6);
    ck_assert_int_eq(strncmp(text, "<!DOCTYPE html>\n<html", 21), 0);
    ck_assert_ptr_nonnull(strstr(text, "</body>\n</html>\n"));
    ck_assert_int_eq(count(text, "<svg"), 2); /* the XFAIL is folded away without a map */
    ck_assert_int_eq(count(text, "</svg>"), 2);
    ck_assert_int_eq(count(text, "<figure "), 3); /* the crash gets a caption only */
    ck_assert_int_eq(count(text, "<details id=\"XFAIL\">"), 1);
    ck_assert_ptr_nonnull(strstr(text, "rerun: <code>harness run --backend vulkan --device 0 --width 8 --kernel "
                                       "glsl/sgemm_tiled --case edge_127 --tier quick</code>"));
    ck_assert_ptr_nonnull(strstr(text, "child died: Segmentation fault"));
    ck_assert_ptr_nonnull(strstr(text, "&lt;GPU &amp; co&gt;"));
    ck_assert_ptr_null(strstr(text, "<GPU"));
    ck_assert_ptr_nonnull(strstr(text, "wrong: a&lt;b"));
    ck_assert_ptr_nonnull(strstr(text, "width &lt;8&gt; not offered")); /* the group-wide table */
    ck_assert_ptr_nonnull(strstr(text, "fill=\"#7b1fa2\""));            /* NaN purple */
    ck_assert_ptr_nonnull(strstr(text, "fill=\"#8d8d8d\""));            /* unwritten grey */
    ck_assert_ptr_nonnull(strstr(text, "sum off by 131%"));
    /* No script and nothing fetched from elsewhere: links stay inside the page. */
    ck_assert_ptr_null(strstr(text, "<script"));
    ck_assert_ptr_null(strstr(text, "src="));
    ck_assert_int_eq(count(text, "href="), count(text, "href=\"#"));
    free(text);
}
END_TEST

START_TEST(small_output_is_drawn_without_gaps)
{
    /* 15 x 16 C: 15 rows and 16 columns of cells, every one marked, plus the frame. */
    struct rep_result r = rec("sgemm_tiled", "edge_15x16x17", V_FAIL);
    T_SET(&r, "M", 15), T_SET(&r, "N", 16), T_SET(&r, "K", 17), r.cmp.elements = 240;
    for (long i = 0; i < 15; i++)
        for (long j = 0; j < 16; j++)
            r.cmp.heat[(i * CMP_HEAT / 15) * CMP_HEAT + j * CMP_HEAT / 16] = 1;
    char *text = page(&r, 1);
    ck_assert_int_eq(count(text, "<rect "), 15 * 16 + 1);
    ck_assert_ptr_nonnull(strstr(text, "fill=\"#ffe100\"")); /* level 1: yellow */
    /* 18-pixel cells: small outputs are drawn larger. */
    ck_assert_ptr_nonnull(strstr(text, "width=\"288\" height=\"270\" fill=\"#e8f0e8\""));
    free(text);
}
END_TEST

START_TEST(html_text_escapes_markup)
{
    FILE *f = tmpfile();
    html_text(f, "<a href='x'>&\"</a>");
    char *out = t_slurp(f);
    ck_assert_str_eq(out, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
    free(out);
    fclose(f);
}
END_TEST

START_TEST(overview_comes_first_with_a_column_per_device_and_links_that_land)
{
    struct rep_result r[4] = {rec("sgemm_tiled", "a", V_PASS), rec("sgemm_tiled", "a", V_FAIL),
                              rec("sgemm_naive", "a", V_PASS), rec("sgemm_naive", "b", V_XFAIL)};
    r[1].device_index = 1; /* a second, identical GPU: its own column */
    char *text = page(r, 4);
    const char *ov = strstr(text, "id=\"overview\""), *fails = strstr(text, "id=\"failures\""),
               *kern = strstr(text, "id=\"kernels\"");
    ck_assert(ov && fails && kern && ov < fails && fails < kern);
    ck_assert_ptr_nonnull(strstr(text, "<th class=\"c\">vulkan 0<br>w8</th><th class=\"c\">vulkan 1<br>w8</th>"));
    /* Every overview link has its target. */
    for (const char *p = strstr(text, "href=\"#"); p; p = strstr(p + 1, "href=\"#")) {
        char id[64], want[80];
        ck_assert_int_eq(sscanf(p, "href=\"#%63[^\"]\"", id), 1);
        snprintf(want, sizeof want, "id=\"%s\"", id);
        ck_assert_msg(strstr(text, want), "no %s", want);
    }
    ck_assert_ptr_nonnull(strstr(text, "1/1 FAIL"));
    ck_assert_ptr_nonnull(strstr(text, ">1/2 XFAIL</a>")); /* one of sgemm_naive's two, not both */
    ck_assert_ptr_nonnull(strstr(text, ">1 PASS</a>"));
    free(text);
}
END_TEST

START_TEST(short_reduction_grid_leaves_empty_cells_undrawn)
{
    struct rep_result r = rec("reduce_generic", "sum_40", V_FAIL);
    r.op = OP_REDUCE, r.n_sizes = 0, r.cmp.elements = 40;
    T_SET(&r, "n", 40 * 1024);
    r.cmp.heat[0] = 100;
    char *text = page(&r, 1);
    /* 32 blocks in the first row, 8 in the second: two background pieces, 9-pixel cells. */
    ck_assert_ptr_nonnull(strstr(text, "width=\"288\" height=\"9\" fill=\"#e8f0e8\""));
    ck_assert_ptr_nonnull(strstr(text, "width=\"72\" height=\"9\" fill=\"#e8f0e8\""));
    ck_assert_ptr_null(strstr(text, "height=\"18\" fill=\"#e8f0e8\""));
    free(text);
}
END_TEST

START_TEST(tiny_map_is_wide_and_tall_enough_for_its_labels)
{
    struct rep_result r = rec("sgemm_tiled", "one", V_FAIL);
    T_SET(&r, "M", 1), T_SET(&r, "N", 1), T_SET(&r, "K", 1000), r.cmp.elements = 1, r.cmp.heat[0] = 250;
    char *text = page(&r, 1);
    long w = 0, h = 0;
    const char *svg = strstr(text, "<svg ");
    ck_assert_ptr_nonnull(svg);
    ck_assert_int_eq(sscanf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%ld\" height=\"%ld\"", &w, &h), 2);
    /* "columns 0..0 of C ->" at about 6 px a character, after the 34-pixel margin. */
    ck_assert_int_ge(w, 34 + 14 * 6);
    ck_assert_int_ge(h, 34 + 8 * 6);
    free(text);
}
END_TEST

START_TEST(invalid_utf8_and_controls_still_make_a_valid_page)
{
    struct rep_result r = rec("sgemm_tiled", "case\xff", V_FAIL);
    snprintf(r.why, sizeof r.why, "compile: x.cu:1: \xed\xa0\x80 bad \x1b[31m \xc3");
    char *text = page(&r, 1);
    ck_assert(txt_valid(text));
    ck_assert_ptr_null(strchr(text, '\x1b'));
    free(text);
}
END_TEST

/* The page that stands in while a run goes on says so, and an interrupted run's page says its
 * results are not all there; neither looks like a whole run. */
START_TEST(an_unfinished_or_interrupted_run_says_so_on_its_page)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    html_write_unfinished(f);
    char *text = t_slurp(f);
    fclose(f);
    ck_assert_int_eq(strncmp(text, "<!DOCTYPE html>\n<html", 21), 0);
    ck_assert_ptr_nonnull(strstr(text, "</body>\n</html>\n"));
    ck_assert_msg(strstr(text, "Not finished: a harness run started at "), "%s", text);
    ck_assert_ptr_null(strstr(text, "passed"));
    free(text);
    struct rep_result r = rec("sgemm_tiled", "edge_127", V_PASS);
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, NULL, NULL, NULL, &err), 0);
    rep_add(&s, &r);
    ck_assert_int_eq(rep_finish(&s, 1, &err), 0);
    f = tmpfile();
    html_write(f, &s);
    text = t_slurp(f);
    fclose(f);
    rep_close(&s);
    ck_assert_msg(strstr(text, "This run was interrupted: the results it did not reach are missing."), "%s", text);
    free(text);
    text = page(&r, 1);
    ck_assert_ptr_null(strstr(text, "interrupted"));
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("html");
    TCase *tc = tcase_create("html");
    tcase_add_test(tc, one_map_per_failing_case_and_text_escaped);
    tcase_add_test(tc, small_output_is_drawn_without_gaps);
    tcase_add_test(tc, html_text_escapes_markup);
    tcase_add_test(tc, overview_comes_first_with_a_column_per_device_and_links_that_land);
    tcase_add_test(tc, short_reduction_grid_leaves_empty_cells_undrawn);
    tcase_add_test(tc, tiny_map_is_wide_and_tall_enough_for_its_labels);
    tcase_add_test(tc, invalid_utf8_and_controls_still_make_a_valid_page);
    tcase_add_test(tc, an_unfinished_or_interrupted_run_says_so_on_its_page);
    suite_add_tcase(s, tc);
    return t_run(s);
}
