/* SPDX-License-Identifier: MIT */
/* infile.c: see infile.h. The open is non-blocking so that a FIFO with no writer returns at
 * once and fstat can refuse it; the flag is cleared again for the reads. */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *infile_open(const char *path, struct hb_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int why = errno;
        err_set(err, "%s: cannot open: %s", path, strerror(why));
        errno = why;
        return NULL;
    }
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        err_set(err, "%s: not a regular file", path);
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int why = errno;
        err_set(err, "%s: cannot open: %s", path, strerror(why));
        close(fd);
        errno = why;
    }
    return f;
}
