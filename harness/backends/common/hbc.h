/* SPDX-License-Identifier: MIT */
/* hbc.h: what every backend would otherwise write again: the range check of a buffer
 * transfer, with one wording of its error. Header-only and API-free, so backends share it
 * without including each other. */
#ifndef HB_HBC_H
#define HB_HBC_H

#include <stddef.h>
#include <stdio.h>

/* Whether [off, off + bytes) lies inside a buffer of `size` bytes; if not, says so in err. */
static inline int hbc_range_ok(size_t size, size_t off, size_t bytes, const char *what, char *err, size_t errlen)
{
    if (off <= size && bytes <= size - off)
        return 1;
    snprintf(err, errlen, "%s: range [%zu, +%zu) outside a %zu-byte buffer", what, off, bytes, size);
    return 0;
}

#endif
