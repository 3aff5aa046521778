/* SPDX-License-Identifier: MIT */
/* known.h: the known-bug lists (cases/known-bugs, and --known-bugs FILE on top of it),
 * rocBLAS-style: driver or toolkit bugs the harness has found and a person has triaged. A
 * listed (backend, device, width, kernel, case) that fails is XFAIL with the stated reason;
 * one that passes is XPASS, so a fixed driver tells you to remove its line. Parsing and
 * matching only. */
#ifndef HB_KNOWN_H
#define HB_KNOWN_H

#include "util.h"

/* One triaged entry: where it applies (globs; widths "" for any) and why. A flaky one (listed
 * under a [flakes] line) is XFAIL when it fails and PASS when it passes, never XPASS. */
struct known_bug {
    char backend[16], device[128], kernel[128], cases[128], widths[32], reason[256];
    char file[256];
    int line;
    int flaky;
};

struct known_set {
    struct known_bug *b;
    int n;
};

/* Appends path's entries to set (start from a zeroed set). A missing file is no entries when
 * !required (the shipped list), else an error; a malformed line is "file:line: problem", and
 * so is one that would hide failures nobody triaged: a reason still "TRIAGE..." (an unedited
 * known-bugs --from draft), a [flakes] entry for every kernel, an entry for every device,
 * kernel and case. */
int known_parse_file(const char *path, int required, struct known_set *set, struct hb_err *err);
/* The first entry matching, or NULL. kernel is "lang/name". */
const struct known_bug *known_match(const struct known_set *set, const char *backend, const char *device, int width,
                                    const char *kernel, const char *case_name);
void known_free(struct known_set *set);

#endif
