/* SPDX-License-Identifier: MIT */
/* junit.c: see junit.h. The document is kept in memory (finished suites, then the open one)
 * and written whole to a temporary beside the file, renamed over it: a reader never sees a
 * half-written file, counts need no fixed width, and a write costs the whole document, so a
 * large one is written when its suite ends, once a second, and at the close. Until the close
 * says the run finished, every document written ends with one more test case, an error saying
 * the run did not finish: a harness killed outright (SIGKILL, the machine gone) leaves a
 * report that CI shows as failed, never a clean run of what it had so far. A path that is
 * not a regular file (a pipe, /dev/stdout, "-") gets the document once, at the close. Results
 * of one (backend, device, width) arrive together (run order; merge sorts them), so each
 * suite is opened once. */
#include "junit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "text.h"

/* Documents up to this size are rewritten after every result. */
#define JUNIT_SMALL (64 * 1024)
#define JUNIT_EVERY_MS 1000.0
/* What the last test case says until the run has finished. */
#define JUNIT_RUNNING                                                                                                  \
    "the harness run did not finish (killed?): the results after the last one in this report are missing"

/* A growing text (open_memstream). */
struct mem {
    FILE *f;
    char *buf;
    size_t len;
};

struct junit {
    char *path, *tmp;      /* tmp NULL: not a regular file, written at the close */
    FILE *stream;          /* that file, opened at junit_open */
    struct mem done;       /* finished suites */
    struct mem name, head; /* the open suite's name, and its attributes and properties */
    struct mem cases;      /* its test cases */
    char stamp[32];
    int root[V_COUNT], suite[V_COUNT];
    double root_s, suite_s, written_ms;
    int open;               /* a suite is open */
    struct rep_result key;  /* identity of the open suite */
    const char *unfinished; /* why the run is not whole (JUNIT_RUNNING until the close), NULL: it is */
};

static void mem_open(struct mem *m)
{
    m->buf = NULL, m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    if (!m->f) { /* as xcalloc: memory is gone */
        fprintf(stderr, "harness: out of memory (a JUnit buffer)\n");
        exit(2);
    }
}
static void mem_close(struct mem *m)
{
    if (m->f)
        fclose(m->f);
    free(m->buf);
    m->f = NULL, m->buf = NULL;
}
static void mem_reset(struct mem *m) { mem_close(m), mem_open(m); }
static const char *mem_text(struct mem *m) { return fflush(m->f) || !m->buf ? "" : m->buf; }

void junit_text(FILE *out, const char *s) { txt_markup(out, s, TXT_XML); }

static void now_text(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void counts(FILE *f, const int *c, double seconds)
{
    int total = 0;
    for (int v = 0; v < V_COUNT; v++)
        total += c[v];
    fprintf(f, "tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"", total, c[V_FAIL] + c[V_XPASS],
            c[V_ERROR], c[V_SKIP], seconds);
}

/* The open suite, whole. */
static void junit_suite(struct junit *j, FILE *f)
{
    fprintf(f, "<testsuite name=\"%s\" ", mem_text(&j->name));
    counts(f, j->suite, j->suite_s);
    fputs(mem_text(&j->head), f);
    fputs(mem_text(&j->cases), f);
    fputs("</testsuite>\n", f);
}

#define JUNIT_DECLARATION "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

/* The suite of one error that says the run is not whole, and why. */
static void junit_unfinished(const struct junit *j, FILE *f)
{
    static const int one_error[V_COUNT] = {[V_ERROR] = 1};
    fputs("<testsuite name=\"harness\" ", f);
    counts(f, one_error, 0);
    fprintf(f,
            " timestamp=\"%s\">\n  <testcase classname=\"harness\" name=\"run-complete\" time=\"0\">"
            "<error type=\"incomplete\" message=\"",
            j->stamp);
    junit_text(f, j->unfinished);
    fputs("\"/></testcase>\n</testsuite>\n", f);
}

/* The document, after its XML declaration (already written, or not, by the caller). */
static void junit_document(struct junit *j, FILE *f)
{
    int root[V_COUNT];
    memcpy(root, j->root, sizeof root);
    root[V_ERROR] += j->unfinished != NULL;
    fputs("<testsuites name=\"harness\" ", f);
    counts(f, root, j->root_s);
    fprintf(f, " timestamp=\"%s\">\n", j->stamp);
    fputs(mem_text(&j->done), f);
    if (j->open)
        junit_suite(j, f);
    if (j->unfinished)
        junit_unfinished(j, f);
    fputs("</testsuites>\n", f);
}

/* The document to the temporary, renamed over the file. -1 with errno when it failed. */
static int junit_write(struct junit *j)
{
    j->written_ms = now_ms();
    FILE *f = fopen(j->tmp, "w");
    if (!f)
        return -1;
    fputs(JUNIT_DECLARATION, f);
    junit_document(j, f);
    int bad = ferror(f);
    if (fclose(f) || bad || rename(j->tmp, j->path)) {
        int saved = errno ? errno : EIO;
        unlink(j->tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

struct junit *junit_open(const char *path, const struct run_header *h, struct hb_err *err)
{
    (void)h;
    struct junit *j = xcalloc(1, sizeof *j);
    struct stat st;
    int regular = strcmp(path, "-") && (stat(path, &st) != 0 || S_ISREG(st.st_mode));
    j->path = xstrdup(path);
    j->unfinished = JUNIT_RUNNING;
    if (regular) {
        size_t n = strlen(path) + 16;
        j->tmp = xcalloc(n, 1);
        snprintf(j->tmp, n, "%s.tmp", path);
    }
    mem_open(&j->done), mem_open(&j->name), mem_open(&j->head), mem_open(&j->cases);
    now_text(j->stamp, sizeof j->stamp);
    errno = 0;
    /* A stream is opened now, so a path that cannot be written fails before the run; the
     * XML declaration goes first, so /dev/full does too. */
    if (!regular)
        j->stream = out_open(path);
    int bad = regular ? junit_write(j) : !j->stream || fputs(JUNIT_DECLARATION, j->stream) < 0 || fflush(j->stream);
    if (bad) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        if (j->stream)
            fclose(j->stream);
        j->stream = NULL;
        junit_close(j, NULL);
        return NULL;
    }
    return j;
}

static void property(FILE *f, const char *name, const char *value)
{
    fprintf(f, "    <property name=\"%s\" value=\"", name);
    junit_text(f, value);
    fputs("\"/>\n", f);
}

/* The suite of r: its id, timestamp, hostname, and what it ran on; its counts and time are
 * written with it (junit_suite). */
static void open_suite(struct junit *j, const struct rep_result *r, const struct run_header *h)
{
    char stamp[32], text[64];
    now_text(stamp, sizeof stamp);
    memset(j->suite, 0, sizeof j->suite);
    j->suite_s = 0;
    mem_reset(&j->name), mem_reset(&j->head), mem_reset(&j->cases);
    txt_printf(text, sizeof text, "%s:%d:w%d", r->backend, r->device_index, r->width);
    junit_text(j->name.f, text);
    FILE *f = j->head.f;
    fprintf(f, " timestamp=\"%s\" hostname=\"", stamp);
    junit_text(f, h->hostname);
    fputs("\">\n  <properties>\n", f);
    const char *schedule = r->schedule[0] ? r->schedule : h->schedule;
    const char *colon = strchr(schedule, ':');
    snprintf(text, sizeof text, "%d", r->device_index);
    const char *props[][2] = {
        {"backend", r->backend}, {"device", r->device},
        {"device_index", text},  {"driver", r->driver},
        {"toolkit", r->driver},  {"tier", h->cases[0] ? h->cases : h->tier},
        {"schedule", schedule},  {"seed", colon ? colon + 1 : ""},
        {"harness", h->harness}, {"reference", h->reference},
        {"command", h->command},
    };
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++)
        property(f, props[i][0], props[i][1]);
    fprintf(f, "    <property name=\"width\" value=\"%d\"/>\n  </properties>\n", r->width);
    j->key = *r;
    j->open = 1;
}

/* The failure's body: the reproducer first, then where it ran and what the case was. */
static void failure_body(FILE *f, const struct rep_result *r, const struct run_header *h)
{
    char *cmd = rep_reproducer_text(r, h);
    fputs("reproduce: ", f);
    junit_text(f, cmd);
    free(cmd);
    fputs("&#10;device: ", f);
    junit_text(f, r->device);
    fputs("&#10;driver: ", f);
    junit_text(f, r->driver);
    if (r->note[0]) {
        fputs("&#10;note: ", f);
        junit_text(f, r->note);
    }
}

static void testcase(FILE *f, const struct rep_result *r, const struct run_header *h)
{
    char text[4096], classes[128];
    txt_printf(text, sizeof text, "%s:%d:w%d:%s/%s", r->backend, r->device_index, r->width, r->lang, r->kernel);
    fputs("  <testcase classname=\"", f);
    junit_text(f, text);
    fputs("\" name=\"", f);
    junit_text(f, r->case_name);
    fprintf(f, "\" time=\"%.6f\">", r->child_ms > 0 ? r->child_ms / 1e3 : 0.0);
    const char *tag = r->verdict == V_ERROR                           ? "error"
                      : r->verdict == V_FAIL || r->verdict == V_XPASS ? "failure"
                                                                      : NULL;
    class_names(r->cmp.classes, classes, sizeof classes);
    rep_describe(r, text, sizeof text);
    if (r->verdict == V_SKIP) {
        fputs("<skipped message=\"", f);
        junit_text(f, text);
        fputs("\"/>", f);
    } else if (tag) {
        fprintf(f, "<%s type=\"%s\" message=\"%s %s: ", tag, classes[0] ? classes : verdict_name(r->verdict),
                verdict_name(r->verdict), classes);
        junit_text(f, text);
        if (!r->group_row) {
            rep_case_text(r, text, sizeof text);
            fputs("; case ", f);
            junit_text(f, text);
        }
        fputs("\">", f);
        failure_body(f, r, h);
        fprintf(f, "</%s>", tag);
    } else if (r->verdict != V_PASS) {
        fprintf(f, "<system-out>%s: ", verdict_name(r->verdict));
        junit_text(f, text);
        fputs("</system-out>", f);
    }
    fputs("</testcase>\n", f);
}

int junit_add(struct junit *j, const struct rep_result *r, const struct run_header *h)
{
    errno = 0;
    int same = j->open && !strcmp(j->key.backend, r->backend) && j->key.device_index == r->device_index &&
               !strcmp(j->key.device, r->device) && j->key.width == r->width;
    int ended = j->open && !same;
    if (ended)
        junit_suite(j, j->done.f);
    if (!same)
        open_suite(j, r, h);
    testcase(j->cases.f, r, h);
    double s = r->child_ms > 0 ? r->child_ms / 1e3 : 0;
    j->root[r->verdict]++, j->suite[r->verdict]++;
    j->root_s += s, j->suite_s += s;
    if (!j->tmp)
        return 0;
    fflush(j->done.f), fflush(j->cases.f);
    int small = j->done.len + j->cases.len < JUNIT_SMALL;
    return small || ended || now_ms() - j->written_ms >= JUNIT_EVERY_MS ? junit_write(j) : 0;
}

int junit_close(struct junit *j, const char *unfinished)
{
    errno = 0;
    int rc = 0;
    j->unfinished = unfinished;
    if (j->tmp)
        rc = junit_write(j);
    else if (j->stream) {
        junit_document(j, j->stream); /* after the declaration, written at the open */
        rc = fflush(j->stream) || ferror(j->stream);
        rc |= fclose(j->stream) != 0;
    }
    mem_close(&j->done), mem_close(&j->name), mem_close(&j->head), mem_close(&j->cases);
    free(j->path), free(j->tmp), free(j);
    return rc ? -1 : 0;
}
