/* SPDX-License-Identifier: MIT */
/* test_loader.c: the one ABI upgrade at load (loader.h): a table of an older ABI reads as
 * today's, with the fields it never had zeroed, whatever lies past its end, and the
 * capabilities of the in-tree backends filled in from their names; today's table is used as
 * it is. */
#include <string.h>

#include "loader.h"
#include "tutil.h"

static int no_devices(struct hb_device_info *out, int max, char *err, size_t errlen)
{
    (void)out, (void)max, (void)err, (void)errlen;
    return 0;
}

static void *not_zero(hb_ctx *ctx, size_t bytes)
{
    (void)ctx, (void)bytes;
    return NULL;
}

/* A table of `abi` with every byte past the fields that ABI has set, as a backend built
 * against an older backend.h would leave its neighbours in memory. */
static struct hb_backend old_table(int abi, const char *name)
{
    struct hb_backend be;
    memset(&be, 0x5a, sizeof be);
    be.abi = abi, be.name = name, be.langs = "cuda", be.list_devices = no_devices;
    be.host_alloc = not_zero;
    return be;
}

START_TEST(an_abi_1_table_reads_as_today_with_later_fields_zeroed)
{
    struct hb_backend old = old_table(1, "vulkan");
    const struct hb_backend *be = ldr_upgrade(&old);
    ck_assert_ptr_ne(be, &old);
    ck_assert_int_eq(be->abi, 1);
    ck_assert_str_eq(be->name, "vulkan");
    ck_assert_ptr_eq(be->list_devices, no_devices);
    ck_assert_ptr_null(be->platform);
    ck_assert_ptr_null(be->faults);
    ck_assert_ptr_null(be->host_alloc);
    ck_assert_ptr_null(be->upload_many);
    ck_assert_uint_eq(be->caps, 0);
}
END_TEST

START_TEST(an_abi_3_table_keeps_its_fields_and_gets_caps_from_its_name)
{
    struct hb_backend old = old_table(3, "sim");
    const struct hb_backend *be = ldr_upgrade(&old);
    ck_assert_ptr_eq(be->host_alloc, not_zero);
    ck_assert_ptr_null(be->download_many);
    ck_assert_uint_eq(be->caps, HB_CAP_IN_PROCESS);
    old = old_table(5, "hip");
    ck_assert_uint_eq(ldr_upgrade(&old)->caps, HB_CAP_RAW_POINTERS);
}
END_TEST

/* ABI 7 changed only hb_kernel_spec: an ABI 6 table is whole, and its caps are its own word,
 * never replaced by the name's (an ABI 6 sim that says 0 gets 0). */
START_TEST(an_abi_6_table_keeps_its_own_caps)
{
    struct hb_backend old = old_table(6, "sim");
    old.caps = 0;
    ck_assert_uint_eq(ldr_upgrade(&old)->caps, 0);
    old.caps = HB_CAP_RAW_POINTERS;
    ck_assert_uint_eq(ldr_upgrade(&old)->caps, HB_CAP_RAW_POINTERS);
    ck_assert_ptr_eq(ldr_upgrade(&old)->upload_many, old.upload_many);
    ck_assert_ptr_null(ldr_upgrade(&old)->prepare);
}
END_TEST

/* ABI 8 appended prepare: an ABI 7 table has none (its loads' SKIPs are then not believed from
 * an in-process backend), whatever lies past its end. */
START_TEST(an_abi_7_table_has_no_prepare)
{
    struct hb_backend old = old_table(7, "sim");
    old.caps = HB_CAP_IN_PROCESS;
    const struct hb_backend *be = ldr_upgrade(&old);
    ck_assert_ptr_ne(be, &old);
    ck_assert_uint_eq(be->caps, HB_CAP_IN_PROCESS);
    ck_assert_ptr_null(be->prepare);
}
END_TEST

START_TEST(todays_table_is_used_as_it_is)
{
    struct hb_backend now = old_table(HB_BACKEND_ABI, "sim");
    now.caps = 0;
    ck_assert_ptr_eq(ldr_upgrade(&now), &now);
    ck_assert_uint_eq(ldr_upgrade(&now)->caps, 0); /* a backend's own word stands */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("loader");
    TCase *t = tcase_create("upgrade");
    tcase_add_test(t, an_abi_1_table_reads_as_today_with_later_fields_zeroed);
    tcase_add_test(t, an_abi_3_table_keeps_its_fields_and_gets_caps_from_its_name);
    tcase_add_test(t, an_abi_6_table_keeps_its_own_caps);
    tcase_add_test(t, an_abi_7_table_has_no_prepare);
    tcase_add_test(t, todays_table_is_used_as_it_is);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
