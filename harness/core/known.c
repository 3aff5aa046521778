/* SPDX-License-Identifier: MIT */
/* known.c: see known.h. Line format: backend device-glob kernel-glob case-glob [width=GLOB]
 * reason... (device globs may not contain spaces: use '*' for them); a line "[flakes]" makes
 * the entries after it flaky. An entry that would hide untriaged failures is refused. */
#include "known.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"

/* Parses one entry's text s: "backend device kernel case [width=GLOB] reason". */
static int known_entry(char *s, struct known_bug *b)
{
    int used = 0;
    if (sscanf(s, "%15s %127s %127s %127s %n", b->backend, b->device, b->kernel, b->cases, &used) != 4 || !s[used])
        return -1;
    s += used;
    if (!strncmp(s, "width=", 6)) {
        size_t n = strcspn(s + 6, " \t");
        if (!n || n >= sizeof b->widths)
            return -1;
        memcpy(b->widths, s + 6, n);
        s = str_trim(s + 6 + n);
    }
    snprintf(b->reason, sizeof b->reason, "%s", s);
    return b->reason[0] ? 0 : -1;
}

/* Whether glob g matches every name: stars alone, or (kernel) stars around one '/'. */
static int known_glob_all(const char *g, int kernel)
{
    size_t stars = strspn(g, "*");
    if (!g[stars])
        return stars > 0;
    return kernel && stars && g[stars] == '/' && g[stars + 1] && !g[stars + 1 + strspn(g + stars + 1, "*")];
}

/* What makes an entry hide failures nobody triaged, or NULL: a reason still the draft's
 * (known-bugs --from writes TRIAGE: for a person to replace), a flaky entry for every kernel,
 * or any entry for every device, kernel and case. */
static const char *known_hides(const struct known_bug *b)
{
    if (!strncmp(b->reason, "TRIAGE", 6))
        return "its reason still says TRIAGE (a draft of known-bugs --from): keep only the driver and toolkit bugs, "
               "each with why, and delete the rest";
    if (b->flaky && known_glob_all(b->kernel, 1))
        return "a [flakes] entry for every kernel would make every failure on its devices an XFAIL: name the "
               "flaky kernels";
    if (known_glob_all(b->device, 0) && known_glob_all(b->kernel, 1) && known_glob_all(b->cases, 0))
        return "an entry for every device, kernel and case would make every failure an XFAIL: name what is known "
               "to fail";
    return NULL;
}

int known_parse_file(const char *path, int required, struct known_set *set, struct hb_err *err)
{
    FILE *f = infile_open(path, err);
    if (!f)
        return errno == ENOENT && !required ? (err->msg[0] = 0, 0) : -1; /* no shipped list: no known bugs */
    char buf[1024];
    int line = 0, rc = 0, flaky = 0;
    while (!rc && fgets(buf, sizeof buf, f)) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *s = str_trim(buf);
        if (!*s)
            continue;
        if (!strcmp(s, "[flakes]")) {
            flaky = 1;
            continue;
        }
        struct known_bug b;
        memset(&b, 0, sizeof b);
        if (known_entry(s, &b)) {
            err_set(err, "%s:%d: expected: backend device-glob kernel-glob case-glob [width=GLOB] reason", path, line);
            rc = -1;
            break;
        }
        b.flaky = flaky;
        const char *hides = known_hides(&b);
        if (hides) {
            err_set(err, "%s:%d: %s", path, line, hides);
            rc = -1;
            break;
        }
        snprintf(b.file, sizeof b.file, "%s", path);
        b.line = line;
        struct known_bug *grown = realloc(set->b, (size_t)(set->n + 1) * sizeof *grown);
        if (!grown) {
            err_set(err, "out of memory");
            rc = -1;
            break;
        }
        set->b = grown;
        set->b[set->n++] = b;
    }
    fclose(f);
    return rc;
}

const struct known_bug *known_match(const struct known_set *set, const char *backend, const char *device, int width,
                                    const char *kernel, const char *case_name)
{
    char w[16];
    snprintf(w, sizeof w, "%d", width);
    for (int i = 0; i < set->n; i++) {
        const struct known_bug *b = &set->b[i];
        if (!strcmp(b->backend, backend) && !fnmatch(b->device, device, 0) && !fnmatch(b->kernel, kernel, 0) &&
            !fnmatch(b->cases, case_name, 0) && (!b->widths[0] || !fnmatch(b->widths, w, 0)))
            return b;
    }
    return NULL;
}

void known_free(struct known_set *set)
{
    free(set->b);
    memset(set, 0, sizeof *set);
}
