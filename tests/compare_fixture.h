/* SPDX-License-Identifier: MIT */
/* compare_fixture.h: what the comparison suites share (test_compare.c, test_compare_sgemm.c,
 * test_compare_nan.c): a float from its bit pattern, for NaN payloads and the guard poison.
 * Header-only; no assertions. */
#ifndef HB_COMPARE_FIXTURE_H
#define HB_COMPARE_FIXTURE_H

#include <stdint.h>
#include <string.h>

static inline float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

#endif
