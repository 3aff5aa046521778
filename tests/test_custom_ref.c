/* SPDX-License-Identifier: MIT */
/* test_custom_ref.c: what a custom kernel's expected values may be (custom_ref.c,
 * custom_oracle.c, issue 47): a C reference or an oracle that leaves an output element unwritten
 * is an error in every type, told from one that gives the poison's value by a second run from
 * the other poison; an oracle runs at a width it is written for; references and oracles get the
 * run's timeout unless their own key says otherwise. */
#include <string.h>

#include "arena.h"
#include "custom.h"
#include "manifest.h"
#include "manifest_fixture.h"
#include "tutil.h"

static const char *refs_c =
    "#include <stdint.h>\n"
    "void nothing(const void *x, void *y, int n) { (void)x, (void)y, (void)n; }\n"
    "void copy_u8(const uint8_t *x, uint8_t *y, int n) { for (int i = 0; i < n; i++) y[i] = x[i]; }\n"
    "void follows_u8(const uint8_t *x, uint8_t *y, int n)\n"
    "{ (void)x; for (int i = 0; i < n; i++) y[i] = y[i] == 0xa5 ? 0xa5 : 7; }\n";

/* Kernel [k] of one input and one output of `type`, judged by `judge` ("reference = refs.c F",
 * "oracle = o"), and `more` manifest text after it. */
static void parse(struct kern_set *ks, const char *type, const char *judge, const char *more)
{
    free(t_write(dir, "refs.c", refs_c));
    char text[2048];
    snprintf(text, sizeof text,
             "[k]\nop = custom\nlang = cuda\nsource = sg.cu\nentry = e\nsizes = n\n"
             "buffers = x %s in n iota; y %s out n\nargs = x y n\nblock = 32\ngrid = n/32\n%s\n%s",
             type, type, judge, more);
    char *path = t_write(dir, "k.manifest", text);
    struct hb_err err = {{0}};
    memset(ks, 0, sizeof *ks);
    ck_assert_msg(kern_parse_file(path, ks, &err) == 0 && cus_resolve(ks, &err) == 0, "%s", err.msg);
    free(path);
}

/* Kernel k's data and expected values on case c, "custom c n=N" (cd->error says why none). */
static void expect(const struct kern_desc *k, long n, struct case_set *cs, struct cus_data *cd)
{
    char line[64];
    snprintf(line, sizeof line, "custom c n=%ld\n", n);
    struct hb_err err = {{0}};
    memset(cs, 0, sizeof *cs);
    ck_assert_msg(case_parse_text("c.cases", line, cs, &err) == 0, "%s", err.msg);
    memset(cd, 0, sizeof *cd);
    cus_data_make(k, &cs->c[0], cd);
    if (k->custom->oracle_k)
        cus_oracle_run(k, &cs->c[0], cd);
    else
        cus_reference(k, &cs->c[0], cd);
}

static void release(struct case_set *cs, struct cus_data *cd)
{
    for (int b = 0; b < HB_MAX_BUF_ARGS; b++)
        arena_free(cd->init[b]), arena_free(cd->expect[b]);
    case_set_free(cs);
}

START_TEST(integer_references_that_write_nothing_are_errors)
{
    static const char *const types[] = {"i32", "u32", "u8", "i64", "u64", "f16"};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        struct kern_set ks;
        parse(&ks, types[t], "reference = refs.c nothing", "");
        struct case_set c;
        struct cus_data cd;
        expect(&ks.k[0], 3, &c, &cd);
        ck_assert_msg(strstr(cd.error, "reference nothing (") &&
                          strstr(cd.error, ") did not write y[0] (still the poison)"),
                      "%s: %s", types[t], cd.error);
        release(&c, &cd);
        kern_set_free(&ks);
    }
}
END_TEST

START_TEST(a_reference_may_give_the_poison_value)
{
    struct kern_set ks;
    parse(&ks, "u8", "reference = refs.c copy_u8", "");
    struct case_set c;
    struct cus_data cd;
    expect(&ks.k[0], 300, &c, &cd);
    ck_assert_msg(!cd.error[0], "%s", cd.error);
    const uint8_t *y = cd.expect[1];
    ck_assert(y[165] == 0xa5 && y[166] == 166 && y[299] == 43);
    release(&c, &cd);
    kern_set_free(&ks);
}
END_TEST

START_TEST(a_reference_that_reads_its_output_is_named)
{
    struct kern_set ks;
    parse(&ks, "u8", "reference = refs.c follows_u8", "");
    struct case_set c;
    struct cus_data cd;
    expect(&ks.k[0], 4, &c, &cd);
    ck_assert_msg(strstr(cd.error, ") left y[0] depending on what it held before the call on case c"), "%s", cd.error);
    release(&c, &cd);
    kern_set_free(&ks);
}
END_TEST

START_TEST(references_and_oracles_get_the_runs_timeout_unless_they_say)
{
    struct kern_set ks;
    parse(&ks, "u8", "reference = refs.c copy_u8",
          "[o]\nop = custom\nlang = cuda\nsource = sg.cu\nentry = e\n"
          "sizes = n\nbuffers = x u8 in n iota; y u8 out n\nargs = x y n\n"
          "block = 32\ngrid = n/32\noracle = k\ntimeout = 9\n");
    cus_set_timeout(7);
    ck_assert(cus_timeout_s(&ks.k[0]) == 7 && cus_timeout_s(&ks.k[1]) == 9);
    cus_set_timeout(120);
    ck_assert(cus_timeout_s(&ks.k[0]) == 120);
    kern_set_free(&ks);
}
END_TEST

/* Oracle [o] of `widths` (none when NULL) for kernel [k], both u8. */
static void parse_oracle(struct kern_set *ks, const char *widths)
{
    char more[1024];
    snprintf(more, sizeof more,
             "[o]\nop = custom\nlang = hip\nsource = sg.cu\nentry = e\nsizes = n\n"
             "buffers = x u8 in n iota; y u8 out n\nargs = x y n\nblock = 32\ngrid = n/32\n"
             "reference = refs.c copy_u8\n%s%s\n",
             widths ? "widths = " : "", widths ? widths : "");
    parse(ks, "u8", "oracle = hip/o", more);
}

START_TEST(an_oracle_runs_at_a_width_it_is_written_for)
{
    static const struct {
        const char *widths;
        int width;
    } cases[] = {{NULL, 32}, {"32", 32}, {"64", 64}, {"64 32", 32}, {"16 64", 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct kern_set ks;
        parse_oracle(&ks, cases[i].widths);
        ck_assert_int_eq(cus_oracle_width(ks.k[0].custom->oracle_k), cases[i].width);
        kern_set_free(&ks);
    }
}
END_TEST

/* Runners that stand in for the emulator: each launch's width, and the output as its start
 * (writes nothing) or with y[0] = 0xa5 and the rest copied (right, the poison's value at 0). */
static int runner_widths[4], runner_calls;

static int runs_nothing(const struct kern_desc *o, const struct hb_case *c, const struct cus_data *cd,
                        void *const outs[], int width, double timeout_s, char *why, size_t len)
{
    (void)o, (void)c, (void)timeout_s, (void)why, (void)len;
    runner_widths[runner_calls++ % 4] = width;
    memcpy(outs[1], cd->init[1], cd->count[1]);
    return 0;
}

static int runs_right(const struct kern_desc *o, const struct hb_case *c, const struct cus_data *cd, void *const outs[],
                      int width, double timeout_s, char *why, size_t len)
{
    runs_nothing(o, c, cd, outs, width, timeout_s, why, len);
    memcpy(outs[1], cd->init[0], cd->count[1]);
    ((uint8_t *)outs[1])[0] = 0xa5;
    return 0;
}

START_TEST(an_oracle_that_writes_nothing_is_an_error)
{
    struct kern_set ks;
    parse_oracle(&ks, "64");
    cus_set_oracle_runner(runs_nothing);
    runner_calls = 0;
    struct case_set c;
    struct cus_data cd;
    expect(&ks.k[0], 5, &c, &cd);
    ck_assert_msg(strstr(cd.error, "oracle hip/o (") &&
                      strstr(cd.error, ") left y[0] unwritten on case c (the emulator at width 64, lockstep): the "
                                       "harness's error, not the kernel's"),
                  "%s", cd.error);
    ck_assert(runner_calls == 2 && runner_widths[0] == 64 && runner_widths[1] == 64); /* the second from 0x5a */
    release(&c, &cd);
    cus_set_oracle_runner(runs_right);
    runner_calls = 0;
    expect(&ks.k[0], 5, &c, &cd);
    ck_assert_msg(!cd.error[0] && runner_calls == 2, "%s", cd.error);
    ck_assert(((uint8_t *)cd.expect[1])[0] == 0xa5 && ((uint8_t *)cd.expect[1])[4] == 4);
    release(&c, &cd);
    cus_set_oracle_runner(NULL);
    kern_set_free(&ks);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("custom_ref");
    TCase *t = tcase_create("custom_ref");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, integer_references_that_write_nothing_are_errors);
    tcase_add_test(t, a_reference_may_give_the_poison_value);
    tcase_add_test(t, a_reference_that_reads_its_output_is_named);
    tcase_add_test(t, references_and_oracles_get_the_runs_timeout_unless_they_say);
    tcase_add_test(t, an_oracle_runs_at_a_width_it_is_written_for);
    tcase_add_test(t, an_oracle_that_writes_nothing_is_an_error);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
