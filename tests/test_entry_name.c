/* SPDX-License-Identifier: MIT */
/* test_entry_name.c: a manifest's template entry and the demangled symbol of the kernel nvcc
 * built from it name the same kernel (backends/common/entry_name.h): return type, parameter
 * list, spaces and integer suffixes aside. The pairs are what the H200 run printed for public
 * kernels (siboehm's SGEMM, NVIDIA's reduction sample) when they did not match. */
#include "backends/common/entry_name.h"
#include "tutil.h"

static void same(const char *entry, const char *demangled)
{
    char a[256], b[256];
    entry_plain_name(entry, a, sizeof a);
    entry_plain_name(demangled, b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "%s -> %s, %s -> %s", entry, a, demangled, b);
}

START_TEST(template_entries_match_their_demangled_symbols)
{
    same("gemm_tiled<16>", "void gemm_tiled<16>(int, int, int, float, float const*, int)");
    same("sgemm_global_mem_coalesce<32>", "void sgemm_global_mem_coalesce<32u>(int, int, int, float, float const*)");
    same("sgemm2DBlocktiling<128, 128, 8, 8, 8>", "void sgemm2DBlocktiling<128, 128, 8, 8, 8>(int, int, int)");
    same("multi_warp_cg_reduce<double, 64, 32>", "void multi_warp_cg_reduce<double, 64ul, 32ul>(double*, double*)");
    same("reduce6<float, 256, true>", "void reduce6<float, 256u, true>(float*, float*, unsigned int)");
    same("k<-1>", "void k<-1L>(int)");
    same("plain", "plain(float*, int)");
}
END_TEST

START_TEST(different_kernels_stay_different)
{
    char a[256], b[256];
    entry_plain_name("reduce0<float>", a, sizeof a);
    entry_plain_name("void reduce0<double>(double*)", b, sizeof b);
    ck_assert_str_ne(a, b);
    /* A digit inside a name is not a number literal: T1u keeps its u. */
    entry_plain_name("k<T1u>", a, sizeof a);
    ck_assert_str_eq(a, "k<T1u>");
    entry_plain_name("void ns::k<8u>(int)", a, sizeof a);
    ck_assert_str_eq(a, "ns::k<8>");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("entry_name");
    TCase *t = tcase_create("entry_name");
    tcase_add_test(t, template_entries_match_their_demangled_symbols);
    tcase_add_test(t, different_kernels_stay_different);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
