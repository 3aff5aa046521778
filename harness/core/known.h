/* known.h: the known-bug list (cases/known-bugs), rocBLAS-style: driver or toolkit bugs
 * the harness has found and a person has triaged. A listed (backend, device, kernel, case)
 * that fails is XFAIL with the stated reason; one that passes is XPASS, so a fixed driver
 * tells you to remove its line. Parsing and matching only. */
#ifndef HB_KNOWN_H
#define HB_KNOWN_H

#include "util.h"

struct known_bug {
    char backend[16], device[128], kernel[128], cases[128], reason[256];
    char file[256];
    int line;
};

struct known_set {
    struct known_bug *b;
    int n;
};

/* A missing file is an empty list; a malformed line is "file:line: problem". */
int known_parse_file(const char *path, struct known_set *set, struct hb_err *err);
/* The first entry matching, or NULL. kernel is "lang/name". */
const struct known_bug *known_match(const struct known_set *set, const char *backend, const char *device,
                                    const char *kernel, const char *case_name);
void known_free(struct known_set *set);

#endif
