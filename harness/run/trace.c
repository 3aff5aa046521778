/* SPDX-License-Identifier: MIT */
/* trace.c: see trace.h. Events are kept in memory until the end: a forked worker's copy of
 * the buffer is never flushed (workers leave by _exit), and a crash of the run leaves no
 * half-written file that looks whole. */
#include "trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

static struct {
    const char *path;
    FILE *mem;
    char *buf;
    size_t len;
    double t0;
    int n; /* events so far, for the comma between them */
    pthread_mutex_t lock;
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

int trace_open(const char *path, double t0_ms, struct hb_err *err)
{
    if (!path)
        return 0;
    FILE *probe = fopen(path, "w");
    if (!probe)
        return err_set(err, "--trace %s: %s", path, strerror(errno)), -1;
    fclose(probe);
    if (!(tr.mem = open_memstream(&tr.buf, &tr.len)))
        return err_set(err, "--trace: %s", strerror(errno)), -1;
    tr.path = path, tr.t0 = t0_ms, tr.n = 0;
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", tr.mem);
    return 0;
}

int trace_on(void) { return tr.mem != NULL; }

/* One event's opening, up to its name; the caller holds the lock. */
static void trace_begin(char phase, int track, const char *name)
{
    fprintf(tr.mem, "%s\n{\"ph\":\"%c\",\"pid\":1,\"tid\":%d,\"name\":", tr.n++ ? "," : "", phase, track);
    jsonl_string(tr.mem, name);
}

void trace_track(int track, const char *format, ...)
{
    if (!tr.mem)
        return;
    char name[256];
    va_list ap;
    va_start(ap, format);
    vsnprintf(name, sizeof name, format, ap);
    va_end(ap);
    pthread_mutex_lock(&tr.lock);
    trace_begin('M', track, "thread_name");
    fputs(",\"args\":{\"name\":", tr.mem);
    jsonl_string(tr.mem, name);
    fprintf(tr.mem, "}}");
    pthread_mutex_unlock(&tr.lock);
}

void trace_span(int track, const char *category, const char *name, const char *detail, double start_ms, double end_ms)
{
    if (!tr.mem)
        return;
    pthread_mutex_lock(&tr.lock);
    trace_begin('X', track, name);
    fputs(",\"cat\":", tr.mem);
    jsonl_string(tr.mem, category);
    /* Microseconds, as the format wants. */
    fprintf(tr.mem, ",\"ts\":%.1f,\"dur\":%.1f", (start_ms - tr.t0) * 1e3, (end_ms - start_ms) * 1e3);
    if (detail) {
        fputs(",\"args\":{\"detail\":", tr.mem);
        jsonl_string(tr.mem, detail);
        fputc('}', tr.mem);
    }
    fputc('}', tr.mem);
    pthread_mutex_unlock(&tr.lock);
}

int trace_close(struct hb_err *err)
{
    if (!tr.mem)
        return 0;
    pthread_mutex_lock(&tr.lock);
    fputs("\n]}\n", tr.mem);
    int rc = fclose(tr.mem) ? -1 : 0;
    tr.mem = NULL;
    FILE *out = rc ? NULL : fopen(tr.path, "w");
    if (!out || fwrite(tr.buf, 1, tr.len, out) != tr.len)
        rc = -1;
    if (out && fclose(out))
        rc = -1;
    if (rc)
        err_set(err, "--trace %s: %s", tr.path, strerror(errno));
    free(tr.buf);
    tr.buf = NULL;
    pthread_mutex_unlock(&tr.lock);
    return rc;
}
