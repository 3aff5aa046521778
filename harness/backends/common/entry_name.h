/* SPDX-License-Identifier: MIT */
/* entry_name.h: a kernel's name as a manifest's `entry` writes it, from either that entry or a
 * demangled symbol, so the two compare: "void gemm<128u, 8>(float*, int)" and "gemm<128, 8>"
 * both become "gemm<128,8>". Header-only and API-free, for any backend that finds template
 * kernels by enumerating a module's symbols. */
#ifndef HB_ENTRY_NAME_H
#define HB_ENTRY_NAME_H

#include <ctype.h>
#include <stddef.h>
#include <string.h>

/* Length of an integer suffix ("u", "ul", "ULL") at p ending a template argument that is a
 * number literal (its digits start after '<', ',', '-' or a space); 0 when there is none. */
static inline size_t entry_int_suffix(const char *name, const char *p)
{
    const char *d = p;
    while (d > name && isdigit((unsigned char)d[-1]))
        d--;
    if (d == p || d == name || !strchr("<,- ", d[-1]))
        return 0;
    size_t n = strspn(p, "uUlL");
    return n && strchr(",> ", p[n]) ? n : 0;
}

/* Drops the parameter list, a function template's return type (the demangler writes it: every
 * top-level word before the name), spaces, and integer suffixes on template arguments (the
 * demangler writes an unsigned 32 as "32u", an unsigned long 64 as "64ul"). */
static inline void entry_plain_name(const char *in, char *out, size_t len)
{
    const char *start = in;
    int depth = 0;
    for (const char *p = in; *p && !(*p == '(' && depth == 0); p++) {
        depth += *p == '<' ? 1 : *p == '>' ? -1 : 0;
        if (*p == ' ' && depth == 0)
            start = p + 1;
    }
    size_t n = 0;
    depth = 0;
    for (const char *p = start; *p && n + 1 < len; p++) {
        if (*p == '(' && depth == 0)
            break;
        depth += *p == '<' ? 1 : *p == '>' ? -1 : 0;
        size_t suffix = depth > 0 ? entry_int_suffix(start, p) : 0;
        if (suffix)
            p += suffix - 1;
        else if (*p != ' ')
            out[n++] = *p;
    }
    out[n] = 0;
}

#endif
