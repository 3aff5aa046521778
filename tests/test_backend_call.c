/* SPDX-License-Identifier: MIT */
/* test_backend_call.c: the one door to a backend (backend_call.h), against a fake table that
 * records its calls. A kernel's load: where kernels run in the process, prepare decides every
 * SKIP before the kernel's code can run, the caller is told just before it can, and a SKIP from
 * load is not believed; elsewhere load alone decides. Each optional method absent: the door's
 * fallback (heap memory, one transfer per call, no faults, no origin, a peer that is never a
 * pass); present: used. */
#include <string.h>

#include "backend_call.h"
#include "tutil.h"

/* What the fake backend was asked, in order: 'p' prepare, 'a' announce, 'l' load. */
static char calls[16];
static int n_calls, uploads, batches, prepare_rc, load_rc;

static void called(char c)
{
    if (n_calls < (int)sizeof calls - 1)
        calls[n_calls++] = c;
}

static const char *fake_error(hb_ctx *ctx)
{
    (void)ctx;
    return "uses inline PTX";
}

static int fake_prepare(hb_ctx *ctx, const struct hb_kernel_spec *spec)
{
    (void)ctx, (void)spec;
    called('p');
    return prepare_rc;
}

static int fake_load(hb_ctx *ctx, const struct hb_kernel_spec *spec, hb_kern **out)
{
    (void)ctx, (void)spec;
    called('l');
    *out = NULL;
    return load_rc;
}

static void announce(void *arg)
{
    (void)arg;
    called('a');
}

static int fake_upload(hb_ctx *ctx, hb_buf *dst, size_t offset, const void *src, size_t bytes)
{
    (void)ctx, (void)dst, (void)offset, (void)src, (void)bytes;
    uploads++;
    return HB_OK;
}

static int fake_upload_many(hb_ctx *ctx, const struct hb_transfer *t, int n)
{
    (void)ctx, (void)t, (void)n;
    batches++;
    return HB_OK;
}

static char locked_memory[64];

static void *fake_host_alloc(hb_ctx *ctx, size_t bytes)
{
    (void)ctx;
    return bytes <= sizeof locked_memory ? locked_memory : NULL;
}

static void fake_host_free(hb_ctx *ctx, void *p)
{
    (void)ctx;
    ck_assert_ptr_eq(p, locked_memory);
    called('f');
}

static int fake_faults(hb_ctx *ctx, struct hb_fault *reads, struct hb_fault *writes)
{
    (void)ctx;
    reads->count = 0, writes->count = 3, writes->arg = 2;
    return HB_OK;
}

/* A table with only the required methods (every optional one NULL), caps as given. */
static struct hb_backend table(unsigned caps)
{
    struct hb_backend be;
    memset(&be, 0, sizeof be);
    be.abi = HB_BACKEND_ABI, be.name = "fake", be.langs = "cuda", be.caps = caps;
    be.last_error = fake_error, be.load = fake_load, be.upload = fake_upload;
    memset(calls, 0, sizeof calls);
    n_calls = uploads = batches = 0;
    prepare_rc = load_rc = HB_OK;
    return be;
}

static int load(struct bcall *b)
{
    struct hb_kernel_spec spec;
    memset(&spec, 0, sizeof spec);
    hb_kern *kern;
    return bcall_load(b, &spec, announce, NULL, &kern);
}

START_TEST(in_process_a_skip_from_prepare_is_believed_and_nothing_loads)
{
    struct hb_backend be = table(HB_CAP_IN_PROCESS);
    be.prepare = fake_prepare;
    prepare_rc = HB_UNSUPPORTED;
    struct bcall b;
    bcall_use(&b, &be);
    ck_assert_int_eq(load(&b), HB_UNSUPPORTED);
    ck_assert_str_eq(calls, "p");
    ck_assert_str_eq(bcall_error(&b), "uses inline PTX");
}
END_TEST

START_TEST(in_process_the_caller_hears_before_the_kernels_code_can_run)
{
    struct hb_backend be = table(HB_CAP_IN_PROCESS);
    be.prepare = fake_prepare;
    struct bcall b;
    bcall_use(&b, &be);
    ck_assert_int_eq(load(&b), HB_OK);
    ck_assert_str_eq(calls, "pal");
}
END_TEST

START_TEST(in_process_a_skip_from_load_is_an_error)
{
    struct hb_backend be = table(HB_CAP_IN_PROCESS);
    be.prepare = fake_prepare;
    load_rc = HB_UNSUPPORTED;
    struct bcall b;
    bcall_use(&b, &be);
    ck_assert_int_eq(load(&b), HB_ERROR);
    ck_assert_ptr_nonnull(strstr(bcall_error(&b), "not believed"));
    ck_assert_ptr_nonnull(strstr(bcall_error(&b), "uses inline PTX"));
    /* The door's words are of that load alone: the next call's failure is the backend's. */
    ck_assert_int_eq(bcall_upload(&b, NULL, 0, "x", 1), HB_OK);
    ck_assert_str_eq(bcall_error(&b), "uses inline PTX");
}
END_TEST

START_TEST(in_process_without_prepare_every_skip_of_load_is_an_error)
{
    struct hb_backend be = table(HB_CAP_IN_PROCESS);
    load_rc = HB_UNSUPPORTED;
    struct bcall b;
    bcall_use(&b, &be);
    ck_assert_int_eq(load(&b), HB_ERROR);
    ck_assert_str_eq(calls, "al");
}
END_TEST

START_TEST(on_a_device_load_alone_decides_and_is_believed)
{
    struct hb_backend be = table(0);
    be.prepare = fake_prepare;
    load_rc = HB_UNSUPPORTED;
    struct bcall b;
    bcall_use(&b, &be);
    ck_assert_int_eq(load(&b), HB_UNSUPPORTED);
    ck_assert_str_eq(calls, "l");
}
END_TEST

START_TEST(absent_optional_methods_fall_back)
{
    struct hb_backend be = table(0);
    be.vendor_name = "cublas"; /* a name without the method is no vendor library */
    struct bcall b;
    bcall_use(&b, &be);
    ck_assert_ptr_null(bcall_vendor(&b));
    ck_assert_ptr_null(bcall_platform(&b));
    int locked = -1;
    unsigned char *p = bcall_host_alloc(&b, 100, &locked);
    ck_assert_int_eq(locked, 0);
    ck_assert_uint_eq(p[0] | p[99], 0);
    bcall_host_free(&b, p, locked);
    struct hb_transfer t[3];
    memset(t, 0, sizeof t);
    ck_assert_int_eq(bcall_upload_many(&b, t, 3), HB_OK);
    ck_assert_int_eq(uploads, 3);
    struct hb_fault f[2];
    memset(f, 0x5a, sizeof f);
    ck_assert_int_eq(bcall_faults(&b, &f[0], &f[1]), 0);
    ck_assert(f[0].count == 0 && f[1].count == 0);
    ck_assert_ptr_null(bcall_kernel_origin(&b, NULL));
    struct hb_kernel_info info;
    ck_assert_int_eq(bcall_kernel_info(&b, NULL, &info), 0);
    ck_assert(!bcall_has_vendor_sgemm(&b) && !bcall_has_copy(&b));
    struct hb_args args;
    memset(&args, 0, sizeof args);
    ck_assert_int_eq(bcall_vendor_sgemm(&b, &args, NULL), HB_UNSUPPORTED);
    ck_assert_str_eq(bcall_error(&b), "backend fake has no vendor library");
    ck_assert_int_eq(bcall_copy(&b, NULL, 0, NULL, 0, 4, NULL), HB_UNSUPPORTED);
    ck_assert_str_eq(bcall_error(&b), "backend fake has no copy");
}
END_TEST

START_TEST(present_optional_methods_are_used)
{
    struct hb_backend be = table(0);
    be.upload_many = fake_upload_many;
    be.host_alloc = fake_host_alloc, be.host_free = fake_host_free;
    be.faults = fake_faults;
    struct bcall b;
    bcall_use(&b, &be);
    struct hb_transfer t[3];
    memset(t, 0, sizeof t);
    ck_assert_int_eq(bcall_upload_many(&b, t, 3), HB_OK);
    ck_assert_int_eq(batches, 1);
    ck_assert_int_eq(uploads, 0);
    ck_assert_int_eq(bcall_upload_many(&b, t, 1), HB_OK); /* one transfer: no batch */
    ck_assert_int_eq(uploads, 1);
    int locked = 0;
    ck_assert_ptr_eq(bcall_host_alloc(&b, 32, &locked), locked_memory);
    ck_assert_int_eq(locked, 1);
    bcall_host_free(&b, locked_memory, locked);
    ck_assert_str_eq(calls, "f");
    struct hb_fault f[2];
    ck_assert_int_eq(bcall_faults(&b, &f[0], &f[1]), 1);
    ck_assert(f[1].count == 3 && f[1].arg == 2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("backend_call");
    TCase *t = tcase_create("door");
    tcase_add_test(t, in_process_a_skip_from_prepare_is_believed_and_nothing_loads);
    tcase_add_test(t, in_process_the_caller_hears_before_the_kernels_code_can_run);
    tcase_add_test(t, in_process_a_skip_from_load_is_an_error);
    tcase_add_test(t, in_process_without_prepare_every_skip_of_load_is_an_error);
    tcase_add_test(t, on_a_device_load_alone_decides_and_is_believed);
    tcase_add_test(t, absent_optional_methods_fall_back);
    tcase_add_test(t, present_optional_methods_are_used);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
