/* SPDX-License-Identifier: MIT */
/* test_custom_data.c: a custom kernel's case data and comparison (custom_data.c, custom_ref.c,
 * custom_compare.c): inputs from the seed and each buffer's init, outputs as the type's poison,
 * scratch as zeros, the reference's outputs through a real build and a contained call, a
 * broken twin sharing the data, a failing reference as reference-error with its words, and
 * the comparison under each tolerance form and type, its first bad element and heat map. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "custom.h"
#include "manifest.h"
#include "manifest_fixture.h"
#include "result.h"
#include "tutil.h"
#include "verify.h"

static const char *ref_c =
    "#include <stdint.h>\n"
    "void twice(const float *x, float *y, const int32_t *k, uint8_t *z, float *t, int n, int m)\n"
    "{ for (int i = 0; i < n; i++) y[i] = 2 * x[i] + t[i];\n"
    "  for (int i = 0; i < m; i++) z[i] = (uint8_t)(z[i] + k[i]); }\n"
    "void crashes(const float *x, float *y, const int32_t *k, uint8_t *z, float *t, int n, int m)\n"
    "{ (void)y, (void)k, (void)z, (void)t, (void)m; volatile float s = x[n]; (void)s; }\n";

static const char *kernel(const char *name, const char *ref, const char *tol)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "[%s]\nop = custom\nlang = cuda\nsource = sg.cu\nentry = e\nsizes = n m\n"
             "buffers = x f32 in n; y f32 out n; k i32 in m range 5 9; z u8 inout m iota; t f32 scratch n\n"
             "args = x y k z t n m\nblock = 32\ngrid = n/32\nreference = ref.c %s\ntolerance = %s\n",
             name, ref, tol);
    return text;
}

struct fixture {
    struct kern_set ks;
    struct case_set cs;
    struct case_data d;
};

static void make(struct fixture *f, const char *manifest)
{
    memset(f, 0, sizeof *f);
    free(t_write(dir, "ref.c", ref_c));
    char *path = t_write(dir, "k.manifest", manifest);
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &f->ks, &err) == 0, "%s", err.msg);
    ck_assert_msg(case_parse_text("c.cases", "custom c n=40 m=300 seed=3\n", &f->cs, &err) == 0, "%s", err.msg);
    f->d.c = &f->cs.c[0];
    op_prepare(&f->d, &f->ks, 1);
    free(path);
}

static void unmake(struct fixture *f)
{
    op_release(&f->d);
    case_set_free(&f->cs);
    kern_set_free(&f->ks);
}

START_TEST(inputs_outputs_and_references_are_made)
{
    char text[2048];
    snprintf(text, sizeof text, "%s\n", kernel("good", "twice", "exact"));
    strcat(text, kernel("twin", "twice", "ulp 4"));
    struct fixture f;
    make(&f, text);
    struct op_layout l, lt;
    op_custom.layout(&f.d, &f.ks.k[0], &l);
    op_custom.layout(&f.d, &f.ks.k[1], &lt);
    ck_assert_ptr_eq(l.data[0], lt.data[0]); /* the twin shares the data */
    ck_assert_int_eq(l.n_bufs, 5);
    ck_assert(l.role[0] == OP_ROLE_IN && l.role[1] == OP_ROLE_OUT && l.role[3] == OP_ROLE_OUT);
    ck_assert(l.role[4] == OP_ROLE_SCRATCH && l.type[3] == TY_U8 && l.type[2] == TY_I32);
    ck_assert(l.bytes[1] == 40 * 4 && l.bytes[3] == 300);
    ck_assert(l.n_ints == 2 && l.ints[0] == 40 && l.ints[1] == 300);
    const int32_t *k = l.data[2];
    const uint8_t *z = l.data[3];
    const uint32_t *y = l.data[1];
    const float *t = l.data[4];
    for (int i = 0; i < 300; i++)
        ck_assert(k[i] >= 5 && k[i] < 9 && z[i] == (uint8_t)i);
    for (int i = 0; i < 40; i++)
        ck_assert(y[i] == 0x7fa5a5a5u && t[i] == 0);
    /* The reference ran: y = 2x, z += k, compared against themselves. */
    const void *got[5] = {l.data[0], NULL, l.data[2], NULL, l.data[4]};
    float yy[40];
    uint8_t zz[300];
    for (int i = 0; i < 40; i++)
        yy[i] = 2 * ((const float *)l.data[0])[i];
    for (int i = 0; i < 300; i++)
        zz[i] = (uint8_t)(z[i] + k[i]);
    got[1] = yy, got[3] = zz;
    struct cmp_result r;
    cmp_init(&r);
    op_custom.compare(&f.d, &f.ks.k[0], got, &r);
    ck_assert_msg(r.classes == 0 && r.elements == 340 && r.bad == 0, "classes %x bad %ld", r.classes, r.bad);
    unmake(&f);
}
END_TEST

START_TEST(a_failing_reference_is_a_reference_error_with_its_words)
{
    struct fixture f;
    make(&f, kernel("bad", "crashes", "exact"));
    struct cmp_result r;
    cmp_init(&r);
    const void *got[5] = {0};
    op_custom.compare(&f.d, &f.ks.k[0], got, &r);
    ck_assert_uint_eq(r.classes, CLS_REFERENCE);
    struct rep_result row;
    memset(&row, 0, sizeof row);
    op_custom.note(&f.d, &f.ks.k[0], &row);
    ck_assert_msg(strstr(row.why, "reference crashes (") && strstr(row.why, "read past the end of x (at byte 160") &&
                      strstr(row.why, "on case c: the harness's error, not the kernel's"),
                  "%s", row.why);
    unmake(&f);
}
END_TEST

/* A length no case of this size allows is the case's error, naming the declaration and its
 * manifest line; a grid dimension too. */
START_TEST(issue_47_a_cases_bad_length_names_its_manifest_line)
{
    char text[2048];
    const char *k = kernel("short", "twice", "exact"), *at = strstr(k, "x f32 in n;") + strlen("x f32 in n");
    snprintf(text, sizeof text, "%.*s-50%s", (int)(at - k), k, at); /* n=40: -10 elements */
    struct fixture f;
    make(&f, text);
    struct rep_result row;
    memset(&row, 0, sizeof row);
    op_custom.note(&f.d, &f.ks.k[0], &row);
    ck_assert_msg(strstr(row.why, "buffer x f32 in n-50 (") && strstr(row.why, "/k.manifest:7): length: -10 elements "
                                                                               "(0 to 2147483647) on this case"),
                  "%s", row.why);
    unsigned grid[3];
    struct hb_err err = {{0}};
    f.ks.k[0].custom->grid[0].t[1].value = 1L << 40; /* n/32 made n - 2^40: negative on every case */
    f.ks.k[0].custom->grid[0].t[2].op = '-';
    ck_assert_int_eq(cus_grid(f.ks.k[0].custom, f.d.c, grid, &err), -1);
    ck_assert_msg(strstr(err.msg, "/k.manifest:10: grid dimension 0 for case c is "), "%s", err.msg);
    unmake(&f);
}
END_TEST

/* A one-output kernel's desc under a tolerance, and its data around `want`. */
static struct cus_desc *desc(const char *type, const char *len, const char *tol, struct kern_set *ks)
{
    free(t_write(dir, "ref.c", "void r(void) {}\n"));
    char text[1024];
    snprintf(text, sizeof text,
             "[k%d]\nop = custom\nlang = cuda\nsource = sg.cu\nentry = e\nsizes = rows cols\n"
             "buffers = a f32 in 1; y %s out %s\nargs = a y\nblock = 1\ngrid = 1\nreference = ref.c r\n"
             "tolerance = %s\n",
             ks->n, type, len, tol);
    char *path = t_write(dir, "k.manifest", text);
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, ks, &err) == 0, "%s", err.msg);
    free(path);
    return ks->k[ks->n - 1].custom;
}

static struct cmp_result judge(const struct cus_desc *d, long rows, long cols, const void *want, const void *got)
{
    struct cus_data cd;
    memset(&cd, 0, sizeof cd);
    cd.sizes[0] = rows, cd.sizes[1] = cols;
    cd.count[1] = (size_t)(rows * cols);
    cd.expect[1] = (void *)want;
    const void *bufs[2] = {NULL, got};
    struct cmp_result r;
    cmp_init(&r);
    cus_compare(d, &cd, bufs, &r);
    return r;
}

START_TEST(float_tolerances_hold_at_their_bound)
{
    struct kern_set ks = {0};
    float want[4] = {1.0f, -2.0f, 0.0f, 1e-30f}, got[4];
    memcpy(got, want, sizeof got);
    got[0] = nextafterf(nextafterf(1.0f, 2.0f), 2.0f); /* 2 ULP up */
    ck_assert_uint_eq(judge(desc("f32", "rows*cols", "ulp 2", &ks), 2, 2, want, got).classes, 0);
    struct cmp_result r = judge(desc("f32", "rows*cols", "ulp 1", &ks), 2, 2, want, got);
    ck_assert_uint_eq(r.classes, CLS_WRONG);
    ck_assert(r.first_i == 0 && r.first_j == 0 && r.max_ratio == 2 && r.threshold == 1 && r.max_ulp == 2);
    ck_assert_str_eq(r.first_buffer, "y");
    ck_assert_str_eq(r.first_values, "expected 1 got 1.00000024 (f32)");
    ck_assert(r.heat_rows == 2 && r.heat_cols == 2 && r.heat[0] > 0);
    got[0] = 1.0f, got[2] = -0.0f; /* -0 = +0 exactly */
    ck_assert_uint_eq(judge(desc("f32", "rows*cols", "exact", &ks), 2, 2, want, got).classes, 0);
    got[1] = -2.0f * (1 + 1e-5f); /* |err| 2e-5: within abs 1e-5 + rel 1e-5 * 2 */
    ck_assert_uint_eq(judge(desc("f32", "rows*cols", "rel 1e-5 abs 1e-5", &ks), 2, 2, want, got).classes, 0);
    r = judge(desc("f32", "rows*cols", "rel 1e-6 abs 1e-6", &ks), 2, 2, want, got);
    ck_assert(r.classes == CLS_WRONG && r.first_i == 0 && r.first_j == 1);
    kern_set_free(&ks);
}
END_TEST

START_TEST(nans_infinities_and_poison)
{
    struct kern_set ks = {0};
    const struct cus_desc *d = desc("f64", "cols", "ulp 1000", &ks);
    double want[4] = {NAN, 1.0, INFINITY, 3.0}, got[4] = {-NAN, 1.0, INFINITY, 3.0};
    ck_assert_uint_eq(judge(d, 1, 4, want, got).classes, 0); /* any two NaNs match */
    got[1] = NAN, got[2] = 1e308;
    struct cmp_result r = judge(d, 1, 4, want, got);
    ck_assert(r.classes == CLS_NAN && r.nan_mismatch == 2 && r.first_i == 1 && r.first_j == -1);
    uint64_t poison = ty_get(TY_F64)->poison;
    memcpy(&got[1], &poison, sizeof poison);
    got[2] = INFINITY;
    r = judge(d, 1, 4, want, got);
    ck_assert(r.classes == CLS_UNWRITTEN && r.unwritten == 1 && r.heat_rows == 1 && r.heat_cols == 4);
    kern_set_free(&ks);
}
END_TEST

/* f32 under rel/abs (the inline path of huge outputs): the same figures and classes as every
 * other element is judged with, special values included. */
START_TEST(f32_bounds_judge_special_values_as_any_element)
{
    struct kern_set ks = {0};
    const struct cus_desc *d = desc("f32", "cols", "rel 1e-3 abs 0", &ks);
    float want[6] = {1.0f, 0.0f, 4.0f, INFINITY, 2.0f, 8.0f}, got[6];
    memcpy(got, want, sizeof got);
    got[1] = -0.0f, got[2] = nextafterf(4.0f, 5.0f); /* within: ratio 0, then 1 ULP */
    struct cmp_result r = judge(d, 1, 6, want, got);
    ck_assert(r.classes == 0 && r.max_ulp == 1 && r.max_ratio > 1e-4 && r.max_ratio < 2e-4);
    got[4] = 2.004f; /* twice the bound */
    r = judge(d, 1, 6, want, got);
    ck_assert(r.classes == CLS_WRONG && r.first_i == 4 && r.bad == 1 && r.max_ratio > 1.9);
    got[0] = NAN, got[3] = 1.0f;
    uint32_t poison = (uint32_t)ty_get(TY_F32)->poison;
    memcpy(&got[5], &poison, sizeof poison);
    r = judge(d, 1, 6, want, got);
    ck_assert(r.classes == (CLS_WRONG | CLS_NAN | CLS_UNWRITTEN) && r.first_i == 0 && r.nan_mismatch == 2 &&
              r.unwritten == 1 && r.bad == 4);
    kern_set_free(&ks);
}
END_TEST

START_TEST(integers_are_exact_whatever_the_tolerance)
{
    struct kern_set ks = {0};
    const struct cus_desc *d = desc("i64", "rows*cols", "ulp 1000", &ks);
    int64_t want[6] = {1, 2, 3, 4, 5, INT64_MIN}, got[6];
    memcpy(got, want, sizeof got);
    ck_assert_uint_eq(judge(d, 2, 3, want, got).classes, 0);
    got[4] = 6;
    struct cmp_result r = judge(d, 2, 3, want, got);
    ck_assert(r.classes == CLS_WRONG && r.first_i == 1 && r.first_j == 1 && isinf(r.max_ratio));
    ck_assert_str_eq(r.first_values, "expected 5 got 6 (i64)");
    got[4] = 5, got[5] = INT64_MAX;
    r = judge(d, 2, 3, want, got);
    ck_assert_str_eq(r.first_values, "expected -9223372036854775808 got 9223372036854775807 (i64)");
    kern_set_free(&ks);
}
END_TEST

/* The parent's check of a case with two outputs (y f32, z u8 inout) from the bytes a worker
 * sends after a LAUNCH, every output in buffer order (verify.c): one hash over both, the
 * comparison of both, and a repeat that differs in the second one alone is nondeterminism,
 * outside the bound by itself. */
static void send_outputs(struct vfy_case *v, const float *y, const uint8_t *z, int launch)
{
    unsigned char bytes[40 * 4 + 300];
    memcpy(bytes, y, 40 * 4), memcpy(bytes + 40 * 4, z, 300);
    for (size_t at = 0, room = 0; at < sizeof bytes; at += room) {
        void *to = vfy_dest(v, at, &room);
        ck_assert(to && room);
        memcpy(to, bytes + at, room);
    }
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_LAUNCH, m.launch = launch, m.guard_arg = m.fault_arg = -1;
    vfy_launch(v, &m);
}

START_TEST(the_parent_judges_every_output_from_the_bytes_sent)
{
    struct fixture f;
    make(&f, kernel("good", "twice", "exact"));
    struct op_layout l;
    op_custom.layout(&f.d, &f.ks.k[0], &l);
    float y[40];
    uint8_t z[300];
    for (int i = 0; i < 40; i++)
        y[i] = 2 * ((const float *)l.data[0])[i];
    for (int i = 0; i < 300; i++)
        z[i] = (uint8_t)(((const uint8_t *)l.data[3])[i] + ((const int32_t *)l.data[2])[i]);
    struct rep_result row;
    memset(&row, 0, sizeof row);
    cmp_init(&row.cmp);
    struct vfy_case v;
    vfy_begin(&v, &f.ks.k[0], &f.d, &row);
    ck_assert(v.out_bytes == 40 * 4 + 300 && v.first_out == 1);
    send_outputs(&v, y, z, 0);
    ck_assert_msg(v.r.cmp.classes == 0 && v.r.cmp.elements == 340, "classes %x", v.r.cmp.classes);
    ck_assert(v.r.output_hash == hb_fnv1a_from(hb_fnv1a_from(hb_fnv1a(NULL, 0), y, sizeof y), z, sizeof z));
    send_outputs(&v, y, z, 1);
    ck_assert_uint_eq(v.r.cmp.classes, 0);
    z[7]++;
    send_outputs(&v, y, z, 2);
    ck_assert(v.r.cmp.classes == CLS_NONDET && !v.r.cmp.repeats_within && v.r.cmp.bad == 0);
    vfy_free(&v);
    unmake(&f);
}
END_TEST

/* A u8 copy of 0 1 2 ... 299 (its right y[165] is 165, u8's poison) and one launch's y. */
static void send_y(struct vfy_case *v, const uint8_t *y, int launch)
{
    size_t room = 0;
    void *to = vfy_dest(v, 0, &room);
    ck_assert(to && room == 300);
    memcpy(to, y, 300);
    struct msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_LAUNCH, m.launch = launch, m.guard_arg = m.fault_arg = -1;
    vfy_launch(v, &m);
}

/* What the parent makes of launches of a kernel that never writes y[165] (each launch's start,
 * the poison, then the other one, testbed.c), of a right one, and of one that differs. */
static struct cmp_result launches(const struct fixture *f, int skip, int differ)
{
    uint8_t y[300];
    for (int i = 0; i < 300; i++)
        y[i] = (uint8_t)i;
    struct rep_result row;
    memset(&row, 0, sizeof row);
    cmp_init(&row.cmp);
    struct vfy_case v;
    vfy_begin(&v, &f->ks.k[0], &f->d, &row);
    for (int launch = 0; launch < 3; launch++) {
        if (skip)
            y[165] = launch % 2 ? 0x5a : 0xa5;
        y[7] = (uint8_t)(differ && launch == 1 ? 8 : 7);
        send_y(&v, y, launch);
    }
    struct cmp_result r = v.r.cmp;
    vfy_free(&v);
    return r;
}

START_TEST(an_element_no_launch_writes_is_unwritten_where_the_poison_is_right)
{
    free(t_write(dir, "ref.c",
                 "#include <stdint.h>\nvoid copy(const uint8_t *x, uint8_t *y, int n)\n"
                 "{ for (int i = 0; i < n; i++) y[i] = x[i]; }\n"));
    char *path = t_write(dir, "k.manifest",
                         "[k]\nop = custom\nlang = cuda\nsource = sg.cu\nentry = e\nsizes = n\n"
                         "buffers = x u8 in n iota; y u8 out n\nargs = x y n\nblock = 32\ngrid = n/32\n"
                         "reference = ref.c copy\n");
    struct fixture f;
    memset(&f, 0, sizeof f);
    struct hb_err err = {{0}};
    ck_assert_msg(kern_parse_file(path, &f.ks, &err) == 0, "%s", err.msg);
    ck_assert_msg(case_parse_text("c.cases", "custom c n=300\n", &f.cs, &err) == 0, "%s", err.msg);
    f.d.c = &f.cs.c[0];
    op_prepare(&f.d, &f.ks, 1);
    free(path);
    struct op_layout l;
    op_custom.layout(&f.d, &f.ks.k[0], &l);
    ck_assert(l.pure_out[1] && !l.pure_out[0]);
    struct cmp_result r = launches(&f, 1, 0);
    ck_assert_msg(r.classes == CLS_UNWRITTEN && r.unwritten == 1 && r.bad == 1 && r.first_i == 165, "classes %x",
                  r.classes);
    ck_assert_str_eq(r.first_values, "expected 165 got 90 (u8)");
    ck_assert(r.heat_rows == 1 && r.heat_cols == 300);
    r = launches(&f, 0, 0);
    ck_assert_uint_eq(r.classes, 0);
    r = launches(&f, 1, 1); /* a difference beside it is still one */
    ck_assert_uint_eq(r.classes, CLS_UNWRITTEN | CLS_NONDET);
    /* Either poison where the reference differs is unwritten. */
    uint8_t got[300];
    for (int i = 0; i < 300; i++)
        got[i] = (uint8_t)i;
    got[3] = 0x5a;
    const void *bufs[2] = {NULL, got};
    cmp_init(&r);
    op_custom.compare(&f.d, &f.ks.k[0], bufs, &r);
    ck_assert(r.classes == CLS_UNWRITTEN && r.unwritten == 1 && r.first_i == 3);
    unmake(&f);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("custom_data");
    TCase *t = tcase_create("custom_data");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, inputs_outputs_and_references_are_made);
    tcase_add_test(t, a_failing_reference_is_a_reference_error_with_its_words);
    tcase_add_test(t, issue_47_a_cases_bad_length_names_its_manifest_line);
    tcase_add_test(t, float_tolerances_hold_at_their_bound);
    tcase_add_test(t, nans_infinities_and_poison);
    tcase_add_test(t, f32_bounds_judge_special_values_as_any_element);
    tcase_add_test(t, integers_are_exact_whatever_the_tolerance);
    tcase_add_test(t, the_parent_judges_every_output_from_the_bytes_sent);
    tcase_add_test(t, an_element_no_launch_writes_is_unwritten_where_the_poison_is_right);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
