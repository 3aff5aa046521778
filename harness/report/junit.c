/* junit.c: see junit.h. Streaming works by rewriting in place: the root's and the open
 * suite's counts are fixed-width and rewritten after each test case, and the closing tags
 * are rewritten after the last one. Results of one (backend, device, width) arrive together
 * (run order; merge sorts them), so each suite is opened once. */
#include "junit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "text.h"

#define COUNT_WIDTH 8

struct junit {
    FILE *f;
    long tail;              /* where the closing tags start */
    long root_at, suite_at; /* offsets of the fixed-width counts */
    int root[V_COUNT], suite[V_COUNT];
    double root_s, suite_s;
    int open;              /* a suite is open */
    struct rep_result key; /* identity of the open suite */
};

void junit_text(FILE *out, const char *s) { txt_markup(out, s, TXT_XML); }

static void now_text(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void write_counts(FILE *f, long at, const int *c, double seconds)
{
    int total = 0;
    for (int v = 0; v < V_COUNT; v++)
        total += c[v];
    fseek(f, at, SEEK_SET);
    fprintf(f, "tests=\"%0*d\" failures=\"%0*d\" errors=\"%0*d\" skipped=\"%0*d\" time=\"%014.3f\"", COUNT_WIDTH, total,
            COUNT_WIDTH, c[V_FAIL] + c[V_XPASS], COUNT_WIDTH, c[V_ERROR], COUNT_WIDTH, c[V_SKIP], seconds);
}

static const char *closing(const struct junit *j)
{
    return j->open ? "</testsuite>\n</testsuites>\n" : "</testsuites>\n";
}

static int finish_write(struct junit *j)
{
    j->tail = ftell(j->f);
    fputs(closing(j), j->f);
    write_counts(j->f, j->root_at, j->root, j->root_s);
    if (j->open)
        write_counts(j->f, j->suite_at, j->suite, j->suite_s);
    fseek(j->f, 0, SEEK_END);
    return fflush(j->f) || ferror(j->f) ? -1 : 0;
}

struct junit *junit_open(const char *path, const struct run_header *h, struct hb_err *err)
{
    struct junit *j = xcalloc(1, sizeof *j);
    if (!(j->f = fopen(path, "w+"))) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
        free(j);
        return NULL;
    }
    char stamp[32];
    now_text(stamp, sizeof stamp);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"harness\" ", j->f);
    j->root_at = ftell(j->f);
    write_counts(j->f, j->root_at, j->root, 0);
    fprintf(j->f, " timestamp=\"%s\">\n", stamp);
    (void)h;
    errno = 0;
    if (finish_write(j)) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        fclose(j->f);
        free(j);
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

/* The suite of r: its id, counts, time, timestamp, hostname, and what it ran on. */
static void open_suite(struct junit *j, const struct rep_result *r, const struct run_header *h)
{
    FILE *f = j->f;
    char stamp[32], text[64];
    now_text(stamp, sizeof stamp);
    fputs("<testsuite name=\"", f);
    txt_printf(text, sizeof text, "%s:%d:w%d", r->backend, r->device_index, r->width);
    junit_text(f, text);
    fputs("\" ", f);
    j->suite_at = ftell(f);
    memset(j->suite, 0, sizeof j->suite);
    j->suite_s = 0;
    write_counts(f, j->suite_at, j->suite, 0);
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
    fseek(j->f, j->tail, SEEK_SET);
    int same = j->open && !strcmp(j->key.backend, r->backend) && j->key.device_index == r->device_index &&
               !strcmp(j->key.device, r->device) && j->key.width == r->width;
    if (!same) {
        if (j->open)
            fputs("</testsuite>\n", j->f);
        open_suite(j, r, h);
    }
    testcase(j->f, r, h);
    double s = r->child_ms > 0 ? r->child_ms / 1e3 : 0;
    j->root[r->verdict]++, j->suite[r->verdict]++;
    j->root_s += s, j->suite_s += s;
    return finish_write(j);
}

int junit_close(struct junit *j)
{
    errno = 0;
    int rc = fflush(j->f) || ferror(j->f);
    rc |= fclose(j->f) != 0;
    free(j);
    return rc ? -1 : 0;
}
