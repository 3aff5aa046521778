/* SPDX-License-Identifier: MIT */
/* test_sim_unroll.c: the emulator's rewrite of nvcc's unroll pragmas for g++
 * (backends/sim/sim_unroll.c): every spelling nvcc takes becomes `#pragma GCC unroll N`, a
 * count it cannot read there (a macro's name, parentheses) the default, anything else as it
 * was. Without it g++ ignored them: loops over register arrays stayed rolled and the arrays
 * in checked memory (the shipped sgemm_optimized ran 3x slower on the emulator). */
#include "backends/sim/sim_unroll.c"
#include "tutil.h"

/* The rewrite of `in` (rolled: the unchecked copy's), into a static buffer. */
static const char *rewrite_as(const char *in, int rolled)
{
    static char out[1024];
    memset(out, 0, sizeof out);
    FILE *src = fmemopen((void *)in, strlen(in), "r"), *dst = fmemopen(out, sizeof out - 1, "w");
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    ck_assert_int_eq(sim_unroll_rewrite(src, dst, rolled), 0);
    fclose(src);
    fclose(dst);
    return out;
}
static const char *rewrite(const char *in) { return rewrite_as(in, 0); }

START_TEST(cuda_spellings_become_gcc_unroll)
{
    ck_assert_str_eq(rewrite("#pragma unroll\nfor (;;)\n"), "#pragma GCC unroll 64\nfor (;;)\n");
    ck_assert_str_eq(rewrite("  #  pragma   unroll 4  \n"), "#pragma GCC unroll 4\n");
    ck_assert_str_eq(rewrite("#pragma unroll 1\n"), "#pragma GCC unroll 1\n");
    ck_assert_str_eq(rewrite("\t#pragma\tunroll\t8\n"), "#pragma GCC unroll 8\n");
}
END_TEST

START_TEST(unreadable_counts_take_the_default)
{
    ck_assert_str_eq(rewrite("#pragma unroll TM\n"), "#pragma GCC unroll 64\n");
    ck_assert_str_eq(rewrite("#pragma unroll (2)\n"), "#pragma GCC unroll 64\n");
    ck_assert_str_eq(rewrite("#pragma unroll(BK / 2)\n"), "#pragma GCC unroll 64\n");
    ck_assert_str_eq(rewrite("#pragma unroll 99999999\n"), "#pragma GCC unroll 65534\n");
    ck_assert_str_eq(rewrite("#pragma unroll -3\n"), "#pragma GCC unroll 64\n");
}
END_TEST

START_TEST(everything_else_is_kept)
{
    const char *kept = "# 1 \"k.cu\"\n#pragma unrollx\n#pragma GCC unroll 8\n#pragma once\nint unroll;\n"
                       "// #pragma unroll\n  x = 1; #pragma unroll\n#pragma omp unroll\nno newline at the end";
    ck_assert_str_eq(rewrite(kept), kept);
    ck_assert_str_eq(rewrite(""), "");
}
END_TEST

/* The unchecked copy leaves to g++ (which ignores nvcc's spelling) only innermost `for` loops
 * that call nothing but fmaf, for its vectorizer; every other loop unrolls as in the checked
 * build. */
START_TEST(rolled_leaves_only_accumulator_loops)
{
    const char *leaves[] = {
        "#pragma unroll\nfor (int j = 0; j < 8; ++j)\n    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);\n",
        "#pragma unroll 4\n  for(int j = 0; j < 4; j++) { c[j] = __fmaf_rn(x, y[j], c[j]); d[j] += 1e5f; }\n",
        "#pragma unroll\nfor (int i = 0; i < TM; ++i)\n    a[i] = As[k][ty * TM + i];\n",
    };
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++)
        ck_assert_str_eq(rewrite_as(leaves[i], 1), leaves[i]);
    ck_assert_str_eq(rewrite_as("#pragma unroll\nfor (int i = 0; i < 8; ++i)\n#pragma unroll\n"
                                "    for (int j = 0; j < 8; ++j) s += a[i][j];\n",
                                1),
                     "#pragma GCC unroll 64\nfor (int i = 0; i < 8; ++i)\n#pragma unroll\n"
                     "    for (int j = 0; j < 8; ++j) s += a[i][j];\n");
    ck_assert_str_eq(rewrite_as("#pragma unroll\nfor (int i = 0; i < 4; ++i) a[i] = part(a4[i], c);\n", 1),
                     "#pragma GCC unroll 64\nfor (int i = 0; i < 4; ++i) a[i] = part(a4[i], c);\n");
    ck_assert_str_eq(rewrite_as("#pragma unroll 2\nfor (int i = 0; i < 4; ++i) { if (i) x += y; }\n", 1),
                     "#pragma GCC unroll 2\nfor (int i = 0; i < 4; ++i) { if (i) x += y; }\n");
    ck_assert_str_eq(rewrite_as("#pragma unroll\nwhile (n--) s += x;\n", 1),
                     "#pragma GCC unroll 64\nwhile (n--) s += x;\n");
    ck_assert_str_eq(rewrite_as("#pragma unroll\n", 1), "#pragma GCC unroll 64\n");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim_unroll");
    TCase *t = tcase_create("sim_unroll");
    tcase_add_test(t, cuda_spellings_become_gcc_unroll);
    tcase_add_test(t, unreadable_counts_take_the_default);
    tcase_add_test(t, everything_else_is_kept);
    tcase_add_test(t, rolled_leaves_only_accumulator_loops);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
