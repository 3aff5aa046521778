/* SPDX-License-Identifier: MIT */
/* test_op.c: the op table (op.h). Its split between inputs and references: a process that
 * runs kernels (a sanitized group's child) makes a case's inputs alone, no reference, and the
 * layout a launch needs comes out the same without one. Every op fills what the rest of the
 * harness asks of it (sizes the record has columns for, cost, shrink, bench), the names the
 * messages list come from the table, and the run's fingerprint reads cases as it always did. */
#include <inttypes.h>

#include "case.h"
#include "manifest.h"
#include "op.h"
#include "op_gemm.h"
#include "tutil.h"

static struct hb_case one_case(const char *line)
{
    struct case_set set = {0};
    struct hb_err err = {{0}};
    char text[256];
    snprintf(text, sizeof text, "%s", line);
    ck_assert_msg(case_parse_line(text, "t.cases", 1, &set, &err) == 0, "%s", err.msg);
    struct hb_case c = set.c[0];
    case_set_free(&set);
    return c;
}

/* The layout of case c for the set's first kernel, with or without references. */
static void layout_of(struct hb_case *c, struct kern_set *ks, int references, struct case_data *d, struct op_layout *l)
{
    memset(d, 0, sizeof *d);
    d->c = c;
    op_prepare(d, ks, references);
    op_get(c->op)->layout(d, &ks->k[0], l);
}

START_TEST(inputs_alone_make_no_reference_and_the_same_layout)
{
    struct kern_set ks = {0};
    struct kern_desc *k = kern_set_push(&ks);
    k->op = OP_REDUCE, k->chunk = 1024;
    struct hb_case c = one_case("reduce r n=3000 dist=uniform");
    struct case_data with, without;
    struct op_layout lw, lo;
    layout_of(&c, &ks, 1, &with, &lw);
    layout_of(&c, &ks, 0, &without, &lo);
    ck_assert_ptr_nonnull(with.ref);
    ck_assert_ptr_null(without.ref);
    ck_assert_uint_eq(lo.bytes[1], 3 * sizeof(float));
    ck_assert_mem_eq(&lw.bytes, &lo.bytes, sizeof lw.bytes);
    ck_assert_mem_eq(without.in[0], with.in[0], 3000 * sizeof(float));
    op_release(&with), op_release(&without);
    kern_set_free(&ks);

    k = kern_set_push(&ks);
    k->op = OP_SGEMM;
    c = one_case("sgemm g M=5 N=7 K=3 dist=uniform");
    layout_of(&c, &ks, 1, &with, &lw);
    layout_of(&c, &ks, 0, &without, &lo);
    const struct gemm_data *gw = with.ref, *go = without.ref;
    ck_assert_ptr_nonnull(gw->refs[0].r.c64);
    ck_assert_ptr_null(go->refs[0].r.c64);
    ck_assert_ptr_null(go->refs[0].r.c32);
    ck_assert_mem_eq(&lw.bytes, &lo.bytes, sizeof lw.bytes);
    ck_assert_mem_eq(go->a, gw->a, 15 * sizeof(float));
    op_release(&with), op_release(&without);
    kern_set_free(&ks);
}
END_TEST

static int column(const char *key)
{
    for (int i = 0; i < OP_SIZE_COLUMNS; i++)
        if (!strcmp(op_size_columns[i], key))
            return 1;
    return 0;
}

/* Every word of `words` is one of `within`. */
static int words_within(const char *words, const char *within)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!op_word_listed(within, w))
            return 0;
    return 1;
}

START_TEST(every_op_fills_what_the_harness_asks_of_it)
{
    int vendors = 0;
    for (int i = 0; i < OP_COUNT; i++) {
        const struct op_desc *op = op_get((enum hb_op)i);
        ck_assert_msg(op->work && op->case_bytes && op->prepare && op->reference && op->release && op->layout &&
                          op->compare && op->describe && op->name_element,
                      "%s lacks a step", op->name);
        /* An op's own size keys are record columns; one whose cases name their own has none. */
        const char *keys = op->size_keys;
        char one[2] = {0, 0}, buf[128];
        snprintf(buf, sizeof buf, "%s", keys);
        for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
            ck_assert_msg(column(w), "%s: size %s has no column in the record", op->name, w);
        ck_assert(!op->named_sizes || !op->size_keys[0]);
        ck_assert_msg(words_within(op->required_keys, keys) && words_within(op->shrink_keys, keys), "%s", op->name);
        for (const char *g = op->grid_vars; *g; g++)
            one[0] = *g, ck_assert_msg(op_word_listed(keys, one), "%s: grid variable %c is no size", op->name, *g);
        vendors += op->vendor;
        ck_assert(!op->vendor || (op->bench && op->bench->rate == OP_BENCH_FLOPS));
    }
    ck_assert_int_eq(vendors, 1);
    ck_assert(op_get(op_vendor())->vendor);
}
END_TEST

/* bench's point for SGEMM is what it always laid out by hand: n x n x n, every leading
 * dimension n, alpha 1 and beta 0; a reduction's is n elements. */
START_TEST(bench_points_are_the_ops_own_cases)
{
    const struct op_bench *b = op_get(op_vendor())->bench;
    struct hb_case c;
    char why[128];
    ck_assert_int_eq(b->point(NULL, 64, &c, why, sizeof why), 0);
    ck_assert_int_eq(case_size(&c, "M") + case_size(&c, "N") + case_size(&c, "K"), 3 * 64);
    ck_assert_double_eq(b->work(NULL, &c), 2.0 * 64 * 64 * 64);
    struct kern_set none = {0};
    struct case_data d = {.c = &c};
    struct op_layout l;
    op_prepare(&d, &none, 0);
    op_get(c.op)->layout(&d, NULL, &l);
    ck_assert_int_eq(l.n_bufs, 3);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(l.ints[i], 64);
    ck_assert_float_eq(l.floats[0], 1.0f);
    ck_assert_float_eq(l.floats[1], 0.0f);
    ck_assert_uint_eq(l.bytes[2], 64 * 64 * sizeof(float));
    op_release(&d);
    b = op_reduce.bench;
    ck_assert_int_eq(b->point(NULL, 1000, &c, why, sizeof why), 0);
    ck_assert_int_eq(case_size(&c, "n"), 1000);
    ck_assert_double_eq(b->work(NULL, &c), 4000.0);
    ck_assert_ptr_null(op_sgemm_strided.bench);
}
END_TEST

static int takes(const struct op_desc *op, const char *word) { return op_word_listed(op->scalar_keys, word); }

START_TEST(messages_list_the_ops_from_the_table)
{
    char buf[128];
    op_names_where(takes, "alpha", " and ", buf, sizeof buf);
    ck_assert_str_eq(buf, "sgemm and sgemm_strided");
    op_names_where(takes, "gamma", " and ", buf, sizeof buf);
    ck_assert_str_eq(buf, "");
    op_names_where(NULL, NULL, " or ", buf, sizeof buf);
    ck_assert_str_eq(buf, "sgemm, reduce, sgemm_strided or custom");
}
END_TEST

/* The fingerprint's text of a case is what it was when cases had a field per size, so the
 * selection hash in a run's header (and shards that merge by it) did not change. */
START_TEST(the_fingerprint_reads_a_case_as_it_always_did)
{
    char got[1024], want[1024];
    struct hb_case c = one_case("sgemm_strided s M=3 N=2 K=4 lda=6 alpha=2 dist=exact");
    op_case_fingerprint(&c, got, sizeof got);
    snprintf(want, sizeof want, "%s %d %ld %ld %ld %ld %ld %ld %ld [%s] %s %u %" PRIu64 " %u %a %a", "s",
             (int)OP_SGEMM_STRIDED, 3L, 2L, 4L, 6L, 3L, 3L, 0L, "", "exact", 0u, c.seed, 1u, 2.0, (double)GEMM_BETA);
    ck_assert_str_eq(got, want);
    c = one_case("custom k n=5 M=2 seed=9");
    op_case_fingerprint(&c, got, sizeof got);
    snprintf(want, sizeof want, "%s %d %ld %ld %ld %ld %ld %ld %ld [%s] %s %u %" PRIu64 " %u %a %a", "k",
             (int)OP_CUSTOM, 0L, 0L, 0L, 0L, 0L, 0L, 0L, "n=5 M=2", "uniform", 0u, (uint64_t)9, 0u, 0.0, 0.0);
    ck_assert_str_eq(got, want);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("op");
    TCase *t = tcase_create("prepare");
    tcase_add_test(t, inputs_alone_make_no_reference_and_the_same_layout);
    suite_add_tcase(s, t);
    t = tcase_create("table");
    tcase_add_test(t, every_op_fills_what_the_harness_asks_of_it);
    tcase_add_test(t, bench_points_are_the_ops_own_cases);
    tcase_add_test(t, messages_list_the_ops_from_the_table);
    tcase_add_test(t, the_fingerprint_reads_a_case_as_it_always_did);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
