/* SPDX-License-Identifier: MIT */
/* text.c: see text.h. The decoder follows RFC 3629's table of well-formed sequences
 * (Unicode 15, table 3-7), which rules out surrogates and overlong forms by the ranges of
 * each sequence's second byte. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t txt_next(const char *s, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    unsigned lo = 0x80, hi = 0xbf, v;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, v = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, v = c & 0x0f, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, v = c & 0x07, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        n = 0, v = 0;
    for (size_t i = 1; i < n; i++) {
        unsigned b = p[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf)) { /* also stops at the NUL */
            n = 0;
            break;
        }
        v = v << 6 | (b & 0x3f);
    }
    if (!n) {
        *cp = TXT_REPLACEMENT;
        return 1;
    }
    *cp = v;
    return n;
}

int txt_valid(const char *s)
{
    while (*s) {
        unsigned cp;
        size_t n = txt_next(s, &cp);
        if (cp == TXT_REPLACEMENT && n == 1)
            return 0;
        s += n;
    }
    return 1;
}

/* Length of the longest prefix of s, at most max bytes, that ends between characters. */
static size_t boundary(const char *s, size_t max)
{
    size_t at = 0;
    while (s[at]) {
        unsigned cp;
        size_t n = txt_next(s + at, &cp);
        if (at + n > max)
            break;
        at += n;
    }
    return at;
}

int txt_copy(char *dst, size_t cap, const char *src)
{
    if (!cap)
        return *src != 0;
    size_t len = strlen(src), keep = len < cap ? len : boundary(src, cap - 1);
    memmove(dst, src, keep);
    dst[keep] = 0;
    return keep < len;
}

int txt_printf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *full = NULL;
    int n = vasprintf(&full, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (cap)
            dst[0] = 0;
        return 1;
    }
    int cut = txt_copy(dst, cap, full);
    free(full);
    return cut;
}

size_t txt_encode(unsigned cp, char *buf)
{
    if (cp < 0x80)
        return buf[0] = (char)cp, 1;
    if (cp < 0x800)
        return buf[0] = (char)(0xc0 | cp >> 6), buf[1] = (char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000) {
        buf[0] = (char)(0xe0 | cp >> 12), buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        buf[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    buf[0] = (char)(0xf0 | cp >> 18), buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), buf[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

void txt_markup(FILE *out, const char *s, enum txt_markup kind)
{
    int xml = kind == TXT_XML;
    while (*s) {
        unsigned cp;
        size_t n = txt_next(s, &cp);
        switch (cp) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs(xml ? "&apos;" : "&#39;", out); break;
        case '\n': fputs(xml ? "&#10;" : "\n", out); break;
        case '\t': fputs(xml ? "&#9;" : "\t", out); break;
        default:
            /* XML 1.0 forbids C0 controls even escaped and U+FFFE/FFFF are not characters;
             * HTML's text has no place for C0 controls or DEL either. */
            if (cp < 0x20 || (xml && (cp == 0xfffe || cp == 0xffff)) || (!xml && cp == 0x7f) ||
                (cp == TXT_REPLACEMENT && n == 1))
                fputs("\xef\xbf\xbd", out);
            else
                fwrite(s, 1, n, out);
        }
        s += n;
    }
}
