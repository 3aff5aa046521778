/* SPDX-License-Identifier: MIT */
/* test_text.c: text.c's UTF-8: well-formed sequences decode, invalid bytes, surrogates and
 * overlong forms read as U+FFFD one byte at a time, and cuts fall between characters. */
#include <string.h>

#include "text.h"
#include "tutil.h"

START_TEST(decodes_valid_and_replaces_invalid)
{
    unsigned cp;
    ck_assert_uint_eq(txt_next("\xc3\xa9", &cp), 2);
    ck_assert_uint_eq(cp, 0xe9);
    ck_assert_uint_eq(txt_next("\xf0\x9f\x98\x80", &cp), 4);
    ck_assert_uint_eq(cp, 0x1f600);
    const char *bad[] = {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80", "\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_uint_eq(txt_next(bad[i], &cp), 1);
        ck_assert_uint_eq(cp, TXT_REPLACEMENT);
        ck_assert(!txt_valid(bad[i]));
    }
    ck_assert(txt_valid("plain caf\xc3\xa9 \xe2\x82\xac"));
}
END_TEST

START_TEST(cuts_fall_between_characters)
{
    char buf[6];
    ck_assert_int_eq(txt_copy(buf, sizeof buf, "ab\xe2\x82\xac\xe2\x82\xac"), 1);
    ck_assert_str_eq(buf, "ab\xe2\x82\xac");
    ck_assert_int_eq(txt_copy(buf, 5, "ab\xe2\x82\xac"), 1);
    ck_assert_str_eq(buf, "ab");
    ck_assert_int_eq(txt_copy(buf, sizeof buf, "abc"), 0);
    ck_assert_str_eq(buf, "abc");
    ck_assert_int_eq(txt_printf(buf, sizeof buf, "%s-%d", "\xc3\xa9\xc3\xa9", 7), 1);
    ck_assert_str_eq(buf, "\xc3\xa9\xc3\xa9-");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, decodes_valid_and_replaces_invalid);
    tcase_add_test(tc, cuts_fall_between_characters);
    suite_add_tcase(s, tc);
    return t_run(s);
}
