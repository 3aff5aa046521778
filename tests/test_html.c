/* test_html.c: the HTML page (html.c): one self-contained document, one SVG heat map per
 * failing or XFAIL case that has output (none for a crash), cells drawn without gaps for
 * small outputs, the special heat kinds in their colours, and all text escaped. */
#include <string.h>

#include "html.h"
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
    r.M = 127, r.N = 128, r.K = 129;
    cmp_init(&r.cmp);
    r.cmp.elements = r.M * r.N;
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
    ck_assert_int_eq(rep_open(&s, NULL, NULL, &err), 0);
    for (int i = 0; i < n; i++)
        rep_add(&s, &r[i]);
    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/r.html", dir);
    ck_assert_int_eq(html_write(path, &s, &err), 0);
    char *text = t_slurp_path(path);
    rep_close(&s);
    t_rmtree(dir);
    return text;
}

START_TEST(one_map_per_failing_case_and_text_escaped)
{
    struct rep_result r[6] = {rec("sgemm_tiled", "edge_127", V_FAIL), rec("sgemm_tiled", "exact_129", V_FAIL),
                              rec("reduce_warp32", "big", V_XFAIL), rec("sgemm_naive", "edge_127", V_PASS),
                              rec("fault_crash", "edge_15", V_ERROR), rec("sgemm_naive", "*", V_SKIP)};
    /* Column stripes every 16 columns, as a tile-edge bug leaves them. */
    for (int i = 0; i < CMP_HEAT; i++)
        for (int j = 3; j < CMP_HEAT; j += 4)
            r[0].cmp.heat[i * CMP_HEAT + j] = 40;
    r[1].cmp.heat[0] = CMP_HEAT_NAN;
    r[1].cmp.heat[1] = CMP_HEAT_UNWRITTEN;
    r[2].op = OP_REDUCE, r[2].n = 1000003, r[2].cmp.elements = 977, r[2].cmp.total_rel_err = 1.31;
    r[2].cmp.heat[5] = 100;
    r[4].cmp.elements = 0; /* the child crashed: nothing to map */
    snprintf(r[4].why, sizeof r[4].why, "child died: Segmentation fault");
    r[5].group_row = 1;
    snprintf(r[5].why, sizeof r[5].why, "width <8> not offered");
    char *text = page(r, 6);
    ck_assert_int_eq(strncmp(text, "<!DOCTYPE html>\n<html", 21), 0);
    ck_assert_ptr_nonnull(strstr(text, "</body>\n</html>\n"));
    ck_assert_int_eq(count(text, "<svg"), 3);
    ck_assert_int_eq(count(text, "</svg>"), 3);
    ck_assert_int_eq(count(text, "<figure>"), 4); /* the crash gets a caption only */
    ck_assert_ptr_nonnull(strstr(text, "child died: Segmentation fault"));
    ck_assert_ptr_nonnull(strstr(text, "&lt;GPU &amp; co&gt;"));
    ck_assert_ptr_null(strstr(text, "<GPU"));
    ck_assert_ptr_nonnull(strstr(text, "wrong: a&lt;b"));
    ck_assert_ptr_nonnull(strstr(text, "width &lt;8&gt; not offered")); /* the group-wide table */
    ck_assert_ptr_nonnull(strstr(text, "fill=\"#7b1fa2\""));           /* NaN purple */
    ck_assert_ptr_nonnull(strstr(text, "fill=\"#8d8d8d\""));           /* unwritten grey */
    ck_assert_ptr_nonnull(strstr(text, "sum of partials off by 131%"));
    ck_assert_ptr_nonnull(strstr(text, "block partials 0..976, row by row"));
    /* No script and nothing fetched from elsewhere. */
    ck_assert_ptr_null(strstr(text, "<script"));
    ck_assert_ptr_null(strstr(text, "src="));
    ck_assert_ptr_null(strstr(text, "href="));
    free(text);
}
END_TEST

START_TEST(small_output_is_drawn_without_gaps)
{
    /* 15 x 16 C: 15 rows and 16 columns of cells, every one marked, plus the frame. */
    struct rep_result r = rec("sgemm_tiled", "edge_15x16x17", V_FAIL);
    r.M = 15, r.N = 16, r.K = 17, r.cmp.elements = 240;
    for (long i = 0; i < r.M; i++)
        for (long j = 0; j < r.N; j++)
            r.cmp.heat[(i * CMP_HEAT / r.M) * CMP_HEAT + j * CMP_HEAT / r.N] = 1;
    char *text = page(&r, 1);
    ck_assert_int_eq(count(text, "<rect "), 15 * 16 + 1);
    ck_assert_ptr_nonnull(strstr(text, "fill=\"#ffe100\"")); /* level 1: yellow */
    ck_assert_ptr_nonnull(strstr(text, "width=\"144\" height=\"135\" fill=\"#e8f0e8\""));
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

START_TEST(unwritable_path_is_an_error)
{
    struct rep_sink s;
    struct hb_err err = {{0}};
    ck_assert_int_eq(rep_open(&s, NULL, NULL, &err), 0);
    ck_assert_int_eq(html_write("/nonexistent/r.html", &s, &err), -1);
    ck_assert_str_eq(err.msg, "/nonexistent/r.html: cannot write: No such file or directory");
    rep_close(&s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("html");
    TCase *tc = tcase_create("html");
    tcase_add_test(tc, one_map_per_failing_case_and_text_escaped);
    tcase_add_test(tc, small_output_is_drawn_without_gaps);
    tcase_add_test(tc, html_text_escapes_markup);
    tcase_add_test(tc, unwritable_path_is_an_error);
    suite_add_tcase(s, tc);
    return t_run(s);
}
