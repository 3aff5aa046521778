/* known.c: see known.h. Line format: backend device-glob kernel-glob case-glob reason...
 * (device globs may not contain spaces: use '*' for them). */
#include "known.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"

int known_parse_file(const char *path, struct known_set *set, struct hb_err *err)
{
    memset(set, 0, sizeof *set);
    FILE *f = infile_open(path, err);
    if (!f)
        return errno == ENOENT ? (err->msg[0] = 0, 0) : -1; /* no list: no known bugs */
    char buf[1024];
    int line = 0, rc = 0;
    while (!rc && fgets(buf, sizeof buf, f)) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *s = str_trim(buf);
        if (!*s)
            continue;
        struct known_bug b;
        memset(&b, 0, sizeof b);
        int used = 0;
        if (sscanf(s, "%15s %127s %127s %127s %n", b.backend, b.device, b.kernel, b.cases, &used) != 4 || !s[used]) {
            err_set(err, "%s:%d: expected: backend device-glob kernel-glob case-glob reason", path, line);
            rc = -1;
            break;
        }
        snprintf(b.reason, sizeof b.reason, "%s", s + used);
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
    if (rc)
        known_free(set);
    return rc;
}

const struct known_bug *known_match(const struct known_set *set, const char *backend, const char *device,
                                    const char *kernel, const char *case_name)
{
    for (int i = 0; i < set->n; i++) {
        const struct known_bug *b = &set->b[i];
        if (!strcmp(b->backend, backend) && !fnmatch(b->device, device, 0) && !fnmatch(b->kernel, kernel, 0) &&
            !fnmatch(b->cases, case_name, 0))
            return b;
    }
    return NULL;
}

void known_free(struct known_set *set)
{
    free(set->b);
    memset(set, 0, sizeof *set);
}
