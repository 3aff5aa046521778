/* SPDX-License-Identifier: MIT */
/* text.h: UTF-8 for every report writer. Strings in records come from drivers, compilers
 * and file names and may hold anything: these helpers cut them only between characters and
 * let each writer walk them as code points, with invalid bytes, surrogates and overlong
 * forms read as U+FFFD, so no output (JSON, XML, HTML, terminal) is ever invalid. Markup
 * escaping (XML and HTML differ in a few characters) is here too; JSON's is jsonl_write.c's. */
#ifndef HB_TEXT_H
#define HB_TEXT_H

#include <stddef.h>
#include <stdio.h>

#define TXT_REPLACEMENT 0xfffdu

/* Decodes the code point at s (not at its terminating NUL) into *cp and returns the bytes it
 * takes; an invalid sequence yields TXT_REPLACEMENT for its first byte alone. */
size_t txt_next(const char *s, unsigned *cp);

/* Whether the whole string is valid UTF-8 (no surrogates, no overlong forms). */
int txt_valid(const char *s);

/* Copies src into dst (cap bytes), cut at the last whole character that fits: never inside
 * one. Returns 1 when src was cut. */
int txt_copy(char *dst, size_t cap, const char *src);

/* snprintf, then the same cut at a character boundary. Returns 1 when the text was cut. */
int txt_printf(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes s as markup text, valid in element content and quoted attributes: XML (JUnit: &apos;,
 * line breaks as character references, no C0 control even escaped) or HTML (&#39;, line
 * breaks kept). What cannot appear becomes U+FFFD. */
enum txt_markup { TXT_XML, TXT_HTML };
void txt_markup(FILE *out, const char *s, enum txt_markup kind);

/* Appends the UTF-8 encoding of cp (at most 4 bytes) to buf; returns the bytes written. */
size_t txt_encode(unsigned cp, char *buf);

#endif
