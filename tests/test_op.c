/* SPDX-License-Identifier: MIT */
/* test_op.c: the op table's split between inputs and references (op.h). A process that runs
 * kernels (a sanitized group's child) makes a case's inputs alone: no reference is made, and
 * the layout a launch needs comes out the same without one. */
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

static Suite *suite(void)
{
    Suite *s = suite_create("op");
    TCase *t = tcase_create("prepare");
    tcase_add_test(t, inputs_alone_make_no_reference_and_the_same_layout);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
