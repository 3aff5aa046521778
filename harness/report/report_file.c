/* SPDX-License-Identifier: MIT */
/* report_file.c: see report_file.h. The temporary is made with mkstemp beside the target (one
 * file system, so the rename is one step) and is never opened before the run ends, so a run
 * stopped before then, by any signal, leaves no temporary behind. */
#include "report_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary beside rf->path, open for writing; its name in rf->tmp. NULL with errno. */
static FILE *rep_file_temp(struct rep_file *rf)
{
    size_t n = strlen(rf->path) + 16;
    rf->tmp = xcalloc(n, 1);
    snprintf(rf->tmp, n, "%s.XXXXXX", rf->path);
    int fd = mkstemp(rf->tmp);
    /* mkstemp makes it 0600: a report is read by others, as fopen's file would be. */
    FILE *f = fd < 0 || fchmod(fd, 0644) != 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        int saved = errno;
        if (fd >= 0)
            close(fd), unlink(rf->tmp);
        free(rf->tmp), rf->tmp = NULL;
        errno = saved;
    }
    return f;
}

int rep_file_prepare(struct rep_file *rf, const char *path, struct hb_err *err)
{
    memset(rf, 0, sizeof *rf);
    rf->path = xstrdup(path);
    struct stat st;
    int direct = !strcmp(path, "-") || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
    FILE *f = direct ? (rf->direct = out_open(path)) : rep_file_temp(rf);
    if (!f) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
        rep_file_release(rf);
        return -1;
    }
    if (!direct) { /* only a check: the temporary of the end is made at the end */
        fclose(f), unlink(rf->tmp);
        free(rf->tmp), rf->tmp = NULL;
    }
    return 0;
}

FILE *rep_file_begin(struct rep_file *rf, struct hb_err *err)
{
    rf->f = rf->direct ? rf->direct : rep_file_temp(rf);
    if (!rf->f)
        err_set(err, "%s: cannot write: %s", rf->path, strerror(errno));
    return rf->f;
}

int rep_file_commit(struct rep_file *rf, struct hb_err *err)
{
    errno = 0;
    int bad = !rf->f || ferror(rf->f);
    bad |= rf->f && fclose(rf->f) != 0;
    if (rf->f == rf->direct)
        rf->direct = NULL;
    rf->f = NULL;
    if (!bad && rf->tmp && rename(rf->tmp, rf->path) != 0)
        bad = 1;
    if (bad)
        err_set(err, "%s: write failed: %s%s", rf->path, strerror(errno ? errno : EIO), rep_file_limit(errno));
    if (rf->tmp) {
        if (bad)
            unlink(rf->tmp);
        free(rf->tmp), rf->tmp = NULL;
    }
    return bad ? -1 : 0;
}

const char *rep_file_limit(int err) { return err == EFBIG ? " (the file size limit: ulimit -f?)" : ""; }

void rep_file_release(struct rep_file *rf)
{
    if (rf->f && rf->f != rf->direct)
        fclose(rf->f);
    if (rf->direct)
        fclose(rf->direct);
    if (rf->tmp)
        unlink(rf->tmp);
    free(rf->tmp), free(rf->path);
    memset(rf, 0, sizeof *rf);
}
