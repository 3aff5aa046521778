/* SPDX-License-Identifier: MIT */
/* test_sim_rewrite.c: the emulator's rewrite of a preprocessed whole file for g++
 * (backends/sim/sim_rewrite.c): every form of launch becomes a call compiled and never made,
 * the user's main() is renamed and stops if called, CUDA's __noinline__ becomes GCC's attribute
 * outside attributes only, a member named like a built-in gets its name back, and literals,
 * comments, system headers and anything not a launch are left as they are. */
#include "backends/sim/sim_rewrite.c"
#include "backends/sim/sim_unroll.c"
#include "tutil.h"

/* The rewrite of `in` (with unroll, its unroll pragmas too), into a static buffer. */
static const char *rewrite_as(const char *in, int rolled)
{
    static char out[4096];
    memset(out, 0, sizeof out);
    FILE *src = fmemopen((void *)in, strlen(in), "r"), *dst = fmemopen(out, sizeof out - 1, "w");
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    ck_assert_int_eq(sim_rewrite(src, dst, rolled), 0);
    fclose(src);
    fclose(dst);
    return out;
}
static const char *rewrite(const char *in) { return rewrite_as(in, 0); }

#define LAUNCH(cfg, k) "(::__sim_host_launch(" cfg ") ? (void)0 : (void)" k

START_TEST(launches_become_calls_never_made)
{
    ck_assert_str_eq(rewrite("k<<<g, b>>>(x, n);"), LAUNCH("g, b", "k") "(x, n));");
    ck_assert_str_eq(rewrite("ns::k<16, T><<<dim3(1, 2), 256, 0, s>>>();"),
                     LAUNCH("dim3(1, 2), 256, 0, s", "ns::k<16, T>") "());");
    ck_assert_str_eq(rewrite("if (n) ::k <<< g, b >>> (x);"), "if (n) " LAUNCH(" g, b ", "::k ") " (x));");
    ck_assert_str_eq(rewrite("{(*fp)<<<1, 2>>>(a[i]);}"), "{" LAUNCH("1, 2", "(*fp)") "(a[i]));}");
    ck_assert_str_eq(rewrite("return table[i]<<<1,\n 2>>>(x);"), "return " LAUNCH("1,\n 2", "table[i]") "(x));");
    ck_assert_str_eq(rewrite("k<(a > b)><<<1, 2>>>(get<int>(v));"), LAUNCH("1, 2", "k<(a > b)>") "(get<int>(v)));");
    ck_assert_str_eq(rewrite("while (n--) (*fp)<<<1, 2>>>(x);"), "while (n--) " LAUNCH("1, 2", "(*fp)") "(x));");
    ck_assert_str_eq(rewrite("else this->k<<<1, 2>>>(x);"), "else " LAUNCH("1, 2", "this->k") "(x));");
    ck_assert_str_eq(rewrite("x = 1; obj.table[i].k<<<1, 2>>>(x);"),
                     "x = 1; " LAUNCH("1, 2", "obj.table[i].k") "(x));");
}
END_TEST

START_TEST(what_is_no_launch_is_kept)
{
    const char *kept = "s = \"k<<<1, 2>>>(x)\"; c = '<'; /* k<<<1, 2>>>(x) */ // k<<<1>>>()\n"
                       "r = R\"x(k<<<1, 2>>>(y))x\";\nw = 1'000'000 + .5e+3; x = y >> 2;\n";
    ck_assert_str_eq(rewrite(kept), kept);
    /* Not a launch it can read (no arguments): marked, for the compiler's error to name. */
    ck_assert_str_eq(rewrite("k<<<1, 2>>>;"), "k __sim_launch_not_rewritten <<<1, 2>>>;");
    ck_assert_str_eq(rewrite(""), "");
}
END_TEST

START_TEST(main_is_renamed_and_stops)
{
    ck_assert_str_eq(
        rewrite("int main(int argc, char **argv)\n{\n    return 0;\n}\n"),
        "int __sim_host_main(int argc, char **argv)\n{ ::__sim_host_unrun(\"main()\");\n    return 0;\n}\n");
    ck_assert_str_eq(rewrite("int main();"), "int __sim_host_main();");
    ck_assert_str_eq(rewrite("int domain; x.main_loop();"), "int domain; x.main_loop();");
    /* a system header's main is its own */
    ck_assert_str_eq(rewrite("# 1 \"/usr/include/x.h\" 1 3 4\nint main;\n# 5 \"k.cu\" 2\nint main;\n"),
                     "# 1 \"/usr/include/x.h\" 1 3 4\nint main;\n# 5 \"k.cu\" 2\nint __sim_host_main;\n");
}
END_TEST

START_TEST(noinline_outside_attributes_only)
{
    ck_assert_str_eq(rewrite("__noinline__ __device__ float f();"), "__attribute__((noinline)) __device__ float f();");
    ck_assert_str_eq(rewrite("__attribute__((__noinline__)) void g(); [[__gnu__::__noinline__]] void h();"),
                     "__attribute__((__noinline__)) void g(); [[__gnu__::__noinline__]] void h();");
}
END_TEST

START_TEST(members_named_like_builtins_keep_their_names)
{
    ck_assert_str_eq(rewrite("p.(sim_self()->blk.width) + q->(sim_self()->blk.block_dim).x"),
                     "p.warpSize + q->blockDim.x");
    ck_assert_str_eq(rewrite("w = (sim_self()->blk.width);"), "w = (sim_self()->blk.width);");
}
END_TEST

START_TEST(unroll_pragmas_are_rewritten_too)
{
    ck_assert_str_eq(rewrite("#pragma unroll 4\nfor (;;) k<<<1, 2>>>();\n"),
                     "#pragma GCC unroll 4\nfor (;;) " LAUNCH("1, 2", "k") "());\n");
}
END_TEST

/* The unchecked copy's rewrite (rolled): the same, but an innermost accumulator loop keeps
 * nvcc's spelling, which g++ ignores (sim_unroll.h). */
START_TEST(the_rolled_rewrite_leaves_accumulator_loops_to_gcc)
{
    const char *tile = "#pragma unroll\nfor (int j = 0; j < 8; ++j)\n    acc[j] = fmaf(a, b[j], acc[j]);\n";
    ck_assert_str_eq(rewrite_as(tile, 1), tile);
    ck_assert_str_eq(rewrite_as(tile, 0),
                     "#pragma GCC unroll 64\nfor (int j = 0; j < 8; ++j)\n    acc[j] = fmaf(a, b[j], acc[j]);\n");
    ck_assert_str_eq(rewrite_as("#pragma unroll 4\nfor (;;) k<<<1, 2>>>();\n", 1),
                     "#pragma GCC unroll 4\nfor (;;) " LAUNCH("1, 2", "k") "());\n");
    ck_assert_str_eq(rewrite_as("", 1), "");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim_rewrite");
    TCase *t = tcase_create("sim_rewrite");
    tcase_add_test(t, launches_become_calls_never_made);
    tcase_add_test(t, what_is_no_launch_is_kept);
    tcase_add_test(t, main_is_renamed_and_stops);
    tcase_add_test(t, noinline_outside_attributes_only);
    tcase_add_test(t, members_named_like_builtins_keep_their_names);
    tcase_add_test(t, unroll_pragmas_are_rewritten_too);
    tcase_add_test(t, the_rolled_rewrite_leaves_accumulator_loops_to_gcc);
    suite_add_tcase(s, t);
    return s;
}
int main(void) { return t_run(suite()); }
