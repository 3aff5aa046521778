/* SPDX-License-Identifier: MIT */
/* test_jsonl.c: the JSON lines reader (jsonl.c, json-c underneath): what the writer writes
 * comes back field for field (strides, seeds past 2^53, NaN origins, heat maps and non-finite
 * figures included), header and end records too; keys it does not know are skipped; and
 * every kind of malformed line is refused with "path:line: problem". */
#include <math.h>
#include <string.h>

#include "jsonl.h"
#include "op_fixture.h"
#include "tutil.h"

/* Every field set, with figures that 9 significant digits hold exactly (the writer's %.9g). */
static struct rep_result full_record(void)
{
    struct rep_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.backend, sizeof r.backend, "vulkan");
    snprintf(r.device, sizeof r.device, "GPU \"quoted\" \\ back <&> caf\xc3\xa9");
    snprintf(r.driver, sizeof r.driver, "580.159 / CUDA 13.0\ttab");
    snprintf(r.lang, sizeof r.lang, "glsl");
    snprintf(r.kernel, sizeof r.kernel, "sgemm_tiled");
    snprintf(r.case_name, sizeof r.case_name, "edge_127x128x129");
    snprintf(r.note, sizeof r.note, "line one\nline two \x01 ctl");
    snprintf(r.why, sizeof r.why, "wrong; oob");
    snprintf(r.dist, sizeof r.dist, "uniform");
    r.width = 32;
    r.op = OP_SGEMM;
    r.verdict = V_FAIL;
    static const char *const names[6] = {"M", "N", "K", "lda", "ldb", "ldc"};
    static const long values[6] = {127, 128, 129, 131, 130, 133};
    for (int i = 0; i < 6; i++)
        T_SET(&r, names[i], values[i]);
    r.device_index = 5;
    r.user_manifest = 1;
    snprintf(r.schedule, sizeof r.schedule, "random:9007199254740993");
    r.seed = 18446744073709551615ull;
    cmp_init(&r.cmp);
    r.cmp.classes = CLS_WRONG | CLS_OOB | CLS_API;
    r.cmp.elements = 16256;
    r.cmp.bad = 1016;
    r.cmp.nan_mismatch = 3;
    r.cmp.unwritten = 4;
    r.cmp.nan_poison = 1, r.cmp.nan_guard = 2, r.cmp.nan_other = 3;
    r.cmp.overflowed = 6;
    r.cmp.threshold = 22.5;
    r.cmp.max_ratio = INFINITY;
    r.cmp.max_ulp = 2183075362ull;
    r.cmp.first_i = 0, r.cmp.first_j = 15;
    r.cmp.first_expected = -7.25;
    r.cmp.first_got = NAN;
    r.cmp.oob_buffer = 2, r.cmp.oob_offset = 65024;
    for (int i = 0; i < CMP_HEAT * CMP_HEAT; i++)
        r.cmp.heat[i] = (unsigned char)(i % 253);
    r.output_hash = 0xe850fa98ffa4a951ull;
    r.kernel_ms = 70.5;
    r.first_launch_ms = 93.25;
    r.child_ms = -INFINITY;
    r.threads = 250112;
    r.group_row = 0;
    return r;
}

static int same_double(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void assert_same(const struct rep_result *a, const struct rep_result *b)
{
    ck_assert_str_eq(a->backend, b->backend);
    ck_assert_str_eq(a->device, b->device);
    ck_assert_str_eq(a->driver, b->driver);
    ck_assert_str_eq(a->lang, b->lang);
    ck_assert_str_eq(a->kernel, b->kernel);
    ck_assert_str_eq(a->case_name, b->case_name);
    ck_assert_str_eq(a->note, b->note);
    ck_assert_str_eq(a->why, b->why);
    ck_assert_str_eq(a->dist, b->dist);
    ck_assert_int_eq(a->width, b->width);
    ck_assert_int_eq(a->group_row, b->group_row);
    ck_assert_int_eq(a->op, b->op);
    ck_assert_int_eq(a->verdict, b->verdict);
    for (int i = 0; i < OP_SIZE_COLUMNS; i++)
        ck_assert_int_eq(T_SIZE(a, op_size_columns[i]), T_SIZE(b, op_size_columns[i]));
    ck_assert_int_eq(a->device_index, b->device_index);
    ck_assert_int_eq(a->user_manifest, b->user_manifest);
    ck_assert_str_eq(a->schedule, b->schedule);
    ck_assert_int_eq(a->cmp.nan_poison, b->cmp.nan_poison);
    ck_assert_int_eq(a->cmp.nan_guard, b->cmp.nan_guard);
    ck_assert_int_eq(a->cmp.nan_other, b->cmp.nan_other);
    ck_assert_int_eq(a->cmp.overflowed, b->cmp.overflowed);
    ck_assert_uint_eq(a->seed, b->seed);
    ck_assert_uint_eq(a->cmp.classes, b->cmp.classes);
    ck_assert_int_eq(a->cmp.elements, b->cmp.elements);
    ck_assert_int_eq(a->cmp.bad, b->cmp.bad);
    ck_assert_int_eq(a->cmp.nan_mismatch, b->cmp.nan_mismatch);
    ck_assert_int_eq(a->cmp.unwritten, b->cmp.unwritten);
    ck_assert(same_double(a->cmp.threshold, b->cmp.threshold));
    ck_assert(same_double(a->cmp.max_ratio, b->cmp.max_ratio));
    ck_assert_uint_eq(a->cmp.max_ulp, b->cmp.max_ulp);
    ck_assert_int_eq(a->cmp.first_i, b->cmp.first_i);
    ck_assert_int_eq(a->cmp.first_j, b->cmp.first_j);
    ck_assert(same_double(a->cmp.first_expected, b->cmp.first_expected));
    ck_assert(same_double(a->cmp.first_got, b->cmp.first_got));
    ck_assert(same_double(a->cmp.total_rel_err, b->cmp.total_rel_err));
    ck_assert_int_eq(a->cmp.oob_buffer, b->cmp.oob_buffer);
    ck_assert_int_eq(a->cmp.oob_offset, b->cmp.oob_offset);
    ck_assert_mem_eq(a->cmp.heat, b->cmp.heat, sizeof a->cmp.heat);
    ck_assert_uint_eq(a->output_hash, b->output_hash);
    ck_assert(same_double(a->kernel_ms, b->kernel_ms));
    ck_assert(same_double(a->first_launch_ms, b->first_launch_ms));
    ck_assert(same_double(a->child_ms, b->child_ms));
    ck_assert_uint_eq(a->threads, b->threads);
}

START_TEST(round_trip_keeps_every_field)
{
    struct rep_result in[3];
    in[0] = full_record();
    /* A passing reduction: no first_bad, oob or heat on the line, a sum error, NaN figures. */
    in[1] = full_record();
    in[1].op = OP_REDUCE;
    in[1].verdict = V_PASS;
    in[1].n_sizes = 0;
    T_SET(&in[1], "n", 1000003);
    in[1].cmp.classes = 0;
    in[1].cmp.first_i = in[1].cmp.first_j = -1;
    in[1].cmp.first_expected = 0, in[1].cmp.first_got = 0;
    in[1].cmp.oob_buffer = -1, in[1].cmp.oob_offset = 0;
    memset(in[1].cmp.heat, 0, sizeof in[1].cmp.heat);
    in[1].cmp.total_rel_err = NAN;
    in[1].cmp.max_ratio = 0.0827776299;
    /* A group row, as a SKIP sends it. */
    in[2] = full_record();
    in[2].group_row = 1;
    in[2].verdict = V_SKIP;
    snprintf(in[2].case_name, sizeof in[2].case_name, "*");
    in[2].cmp.first_i = in[2].cmp.first_j = -1;
    in[2].cmp.first_expected = 0, in[2].cmp.first_got = 0;
    in[2].cmp.first_got = -INFINITY;
    in[2].cmp.first_i = 7;

    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/r.jsonl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 3; i++)
        jsonl_write(f, &in[i]);
    fclose(f);

    struct rep_result *out;
    int n;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read(path, &out, &n, &err), 0);
    ck_assert_int_eq(n, 3);
    for (int i = 0; i < 3; i++)
        assert_same(&in[i], &out[i]);

    /* And writing what was read gives the same bytes. */
    char *first = t_slurp_path(path);
    f = fopen(path, "w");
    for (int i = 0; i < n; i++)
        jsonl_write(f, &out[i]);
    fclose(f);
    char *second = t_slurp_path(path);
    ck_assert_str_eq(first, second);
    free(first);
    free(second);
    free(out);
    t_rmtree(dir);
}
END_TEST

static const char good[] =
    "{\"backend\":\"sim\",\"device\":\"d\",\"driver\":\"x\",\"kernel\":\"k\",\"lang\":\"cuda\",\"width\":32,"
    "\"op\":\"sgemm\",\"case\":\"c\",\"verdict\":\"PASS\",\"classes\":\"\",\"why\":\"\",\"M\":1,\"N\":2,\"K\":3,"
    "\"n\":0,\"dist\":\"uniform\",\"seed\":5,\"elements\":2,\"bad\":0,\"nan_mismatch\":0,\"unwritten\":0,"
    "\"max_ratio\":0.5,\"threshold\":16,\"max_ulp\":1,\"output_hash\":\"00000000000000ff\",\"kernel_ms\":1.25,"
    "\"child_ms\":2,\"threads\":64,\"group_row\":0,\"note\":\"\"";

START_TEST(unknown_keys_are_skipped)
{
    char line[2048];
    struct rep_result r;
    struct hb_err err = {{0}};
    snprintf(line, sizeof line, "%s,\"perf_ratio\":1.5,\"extra\":{\"a\":[1,\"x\"],\"b\":{\"c\":1}}}", good);
    ck_assert_msg(jsonl_parse_line(line, &r, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(r.seed, 5); /* schema 1 wrote seeds as numbers */
    ck_assert_str_eq(r.backend, "sim");
    ck_assert_uint_eq(r.output_hash, 255);
    ck_assert(r.kernel_ms == 1.25);
    ck_assert_int_eq(r.cmp.first_i, -1);
    ck_assert_int_eq(r.cmp.oob_buffer, -1);
}
END_TEST

/* A custom case's sizes are its own names: the line gives them as text and every column as 0
 * (docs/json-schema.md), and a reader takes them from the text, whatever the order of the keys
 * (the op may come after them); a gemm record's are its columns. */
START_TEST(sizes_go_to_the_columns_or_the_text_by_op)
{
    struct rep_result r = full_record(), back;
    r.op = OP_CUSTOM, r.n_sizes = 0;
    T_SET(&r, "n", 5), T_SET(&r, "rows", 3);
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    jsonl_write(f, &r);
    fclose(f);
    ck_assert_msg(
        strstr(line, "\"M\":0,\"N\":0,\"K\":0,\"n\":0,\"lda\":0,\"ldb\":0,\"ldc\":0,\"sizes\":\"n=5 rows=3\""), "%s",
        line);
    free(line);
    char text[4096], tail[2048];
    struct hb_err err = {{0}};
    const char *op = strstr(good, "\"op\":\"sgemm\"");
    snprintf(tail, sizeof tail, "%.*s\"op\":\"custom\"%s", (int)(op - good - 1), good + 1,
             op + strlen("\"op\":\"sgemm\""));
    snprintf(text, sizeof text, "{\"sizes\":\"n=5 rows=3\",\"n\":7,%s}", tail);
    ck_assert_msg(jsonl_parse_line(text, &back, &err) == 0, "%s: %s", text, err.msg);
    ck_assert_int_eq(back.n_sizes, 2);
    ck_assert_int_eq(T_SIZE(&back, "n"), 5);
    ck_assert_int_eq(T_SIZE(&back, "rows"), 3);
    snprintf(text, sizeof text, "%s}", good);
    ck_assert_msg(jsonl_parse_line(text, &back, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(back.n_sizes, 3); /* M N K; n is 0 there */
    ck_assert_int_eq(T_SIZE(&back, "K"), 3);
    snprintf(text, sizeof text, "{\"sizes\":\"rows\",%s}", tail);
    ck_assert_int_eq(jsonl_parse_line(text, &back, &err), -1);
    ck_assert_msg(strstr(err.msg, "\"sizes\": expected name=value pairs"), "%s", err.msg);
}
END_TEST

/* Each bad line goes third in a file (a good line, a blank line, then it). */
static const struct {
    const char *tail; /* appended to `good` */
    const char *problem;
} bad_lines[] = {
    {"", "ends inside a record"},
    {",\"x\" 1}", "not JSON"},
    {",\"verdict\":\"MAYBE\"}", "unknown verdict MAYBE"},
    {",\"width\":\"32\"}", "\"width\": expected an integer"},
    {",\"width\":3.5}", "\"width\": expected an integer"},
    {",\"width\":4294967296}", "\"width\": 4294967296 is out of range"},
    {",\"M\":99999999999999999999}", "\"M\": expected an integer"},
    {",\"seed\":-1}", "\"seed\": expected an unsigned integer"},
    {",\"seed\":\"18446744073709551616\"}", "\"seed\": expected an unsigned integer in a string"},
    {",\"seed\":\"-1\"}", "\"seed\": expected an unsigned integer in a string"},
    {",\"classes\":\"wrong+bogus\"}", "unknown class bogus"},
    {",\"heat\":\"00ff\"}", "expected a string of 2048 hex digits"},
    {",\"output_hash\":\"00000000000000zz\"}", "not lowercase hex"},
    {",\"max_ratio\":\"big\"}", "\"max_ratio\": expected a number, \"nan\""},
    {",\"max_ratio\":NaN}", "\"max_ratio\": expected a finite number"},
    {",\"max_ratio\":1e400}", "\"max_ratio\": expected a finite number"},
    {",\"op\":\"conv\"}", "unknown op conv"},
    {",\"why\":\"a\\qb\"}", "not JSON"},
    {",\"why\":\"abc}", "ends inside a record"},
    {",\"why\":\"a\\u0000b\"}", "\"why\": NUL character in a string"},
    {",\"why\":\"\xff\"}", "not JSON: invalid utf-8"},
    {",\"lang\":\"much-too-long-lang\"}", "\"lang\": longer than 7 bytes"},
    {",\"x\":tru}", "not JSON"},
    {"} trailing", "not JSON"},
    {",}", "not JSON"},
    {",\"first_bad\":{\"i\":\"x\"}}", "\"i\": expected an integer"},
    {",\"first_bad\":1}", "\"first_bad\": expected an object"},
    {",\"M\":}", "not JSON"},
    {",\"schema\":3}", "schema 3: written by a newer harness"},
    {",\"schema\":2}", "record without \"record\""},
    {",\"record\":\"footer\"}", "\"record\": expected \"header\", \"result\" or \"end\""},
};

START_TEST(malformed_line_names_path_and_line)
{
    char *dir = t_tmpdir();
    char text[4096], want[256];
    snprintf(text, sizeof text, "%s}\n\n%s%s\n%s}\n", good, good, bad_lines[_i].tail, good);
    char *path = t_write(dir, "bad.jsonl", text);
    struct rep_result *out = (struct rep_result *)1;
    int n = -1;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read(path, &out, &n, &err), -1);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(n, 0);
    snprintf(want, sizeof want, "%s:3: ", path);
    ck_assert_msg(!strncmp(err.msg, want, strlen(want)), "case %d: '%s' lacks '%s'", _i, err.msg, want);
    ck_assert_msg(strstr(err.msg, bad_lines[_i].problem), "case %d: '%s' lacks '%s'", _i, err.msg,
                  bad_lines[_i].problem);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(line_without_result_keys_is_refused)
{
    struct rep_result r;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_parse_line("{\"backend\":\"sim\"}", &r, &err), -1);
    ck_assert_str_eq(err.msg, "missing \"kernel\": not a harness result");
    ck_assert_int_eq(jsonl_parse_line("[]", &r, &err), -1);
    ck_assert_str_eq(err.msg, "expected an object");
}
END_TEST

START_TEST(missing_file_and_empty_file)
{
    struct rep_result *out;
    int n;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read("/nonexistent/x.jsonl", &out, &n, &err), -1);
    ck_assert_str_eq(err.msg, "/nonexistent/x.jsonl: cannot open: No such file or directory");
    char *dir = t_tmpdir();
    char *path = t_write(dir, "empty.jsonl", "\n  \n");
    ck_assert_int_eq(jsonl_read(path, &out, &n, &err), 0);
    ck_assert_int_eq(n, 0);
    free(out);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(header_and_end_records_round_trip)
{
    struct run_header *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    char *argv[] = {"build/harness", "run", "--case", "it's \xc3\xa9"};
    rep_header_init(h, 4, argv);
    snprintf(h->tier, sizeof h->tier, "standard");
    snprintf(h->manifests[0], REP_PATH, "/a b/x.manifest");
    snprintf(h->manifests[1], REP_PATH, "y.manifest");
    h->n_manifests = 2, h->only_manifest = 1, h->shard = 1, h->shards = 3;
    snprintf(h->schedule, sizeof h->schedule, "random:7");
    char *dir = t_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/r.jsonl", dir);
    FILE *f = fopen(path, "w");
    jsonl_write_header(f, h);
    struct rep_result r = full_record();
    jsonl_write(f, &r);
    jsonl_write_end(f, 1, 1);
    fclose(f);
    struct jsonl_run *run = calloc(1, sizeof *run);
    struct hb_err err = {{0}};
    ck_assert_msg(jsonl_read_run(path, run, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(run->schema, JSONL_SCHEMA);
    ck_assert(run->has_header && run->has_end && run->interrupted);
    ck_assert_int_eq(run->end_results, 1);
    ck_assert_int_eq(run->n, 1);
    assert_same(&r, &run->results[0]);
    const struct run_header *b = &run->header;
    ck_assert_str_eq(b->command, "build/harness run --case 'it'\\''s \xc3\xa9'");
    ck_assert_str_eq(b->manifests[0], "/a b/x.manifest");
    ck_assert_str_eq(b->manifests[1], "y.manifest");
    ck_assert_int_eq(b->n_manifests, 2);
    ck_assert_int_eq(b->only_manifest, 1);
    ck_assert_int_eq(b->shard, 1);
    ck_assert_int_eq(b->shards, 3);
    ck_assert_str_eq(b->tier, "standard");
    ck_assert_str_eq(b->schedule, "random:7");
    ck_assert_str_eq(b->start, h->start);
    ck_assert_str_eq(b->hostname, h->hostname);
    ck_assert_str_eq(b->harness, h->harness);
    jsonl_run_free(run);
    free(run);
    free(h);
    t_rmtree(dir);
}
END_TEST

/* Whole files that are not this format, each refused at its line. */
static const struct {
    const char *text;
    size_t len;
    const char *problem;
} bad_files[] = {
    {"\0\0\0\n", 4, "1: NUL byte in the line"},
    {"{\"schema\":2,\"record\":\"end\",\"results\":0}\n{\"schema\":2,\"record\":\"end\",\"results\":0}\n", 0,
     "2: a record after the end record"},
    {"{\"schema\":2,\"record\":\"header\"}\n{\"schema\":2,\"record\":\"header\"}\n", 0, "2: a second run header"},
    {"{\"schema\":2,\"record\":\"end\"}\n", 0, "1: end record without a count"},
    {"{\"schema\":2,\"record\":\"header\",\"manifests\":\"x\"}\n", 0, "\"manifests\": expected an array"},
};

START_TEST(damaged_files_are_refused)
{
    char *dir = t_tmpdir();
    size_t len = bad_files[_i].len ? bad_files[_i].len : strlen(bad_files[_i].text);
    char *path = t_write_n(dir, "bad.jsonl", bad_files[_i].text, len);
    struct jsonl_run *run = calloc(1, sizeof *run);
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read_run(path, run, &err), -1);
    ck_assert_msg(strstr(err.msg, bad_files[_i].problem), "case %d: '%s' lacks '%s'", _i, err.msg,
                  bad_files[_i].problem);
    ck_assert_ptr_null(run->results);
    free(run);
    free(path);
    t_rmtree(dir);
}
END_TEST

START_TEST(a_device_is_refused_not_read_forever)
{
    struct rep_result *out;
    int n;
    struct hb_err err = {{0}};
    ck_assert_int_eq(jsonl_read("/dev/zero", &out, &n, &err), -1);
    ck_assert_msg(strstr(err.msg, "/dev/zero: not a regular file"), "%s", err.msg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jsonl");
    TCase *tc = tcase_create("jsonl");
    tcase_add_test(tc, round_trip_keeps_every_field);
    tcase_add_test(tc, unknown_keys_are_skipped);
    tcase_add_test(tc, sizes_go_to_the_columns_or_the_text_by_op);
    tcase_add_loop_test(tc, malformed_line_names_path_and_line, 0, (int)(sizeof bad_lines / sizeof bad_lines[0]));
    tcase_add_test(tc, line_without_result_keys_is_refused);
    tcase_add_test(tc, missing_file_and_empty_file);
    tcase_add_test(tc, header_and_end_records_round_trip);
    tcase_add_loop_test(tc, damaged_files_are_refused, 0, (int)(sizeof bad_files / sizeof bad_files[0]));
    tcase_add_test(tc, a_device_is_refused_not_read_forever);
    suite_add_tcase(s, tc);
    return t_run(s);
}
