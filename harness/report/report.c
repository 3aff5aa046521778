/* SPDX-License-Identifier: MIT */
/* report.c: the sink that every result goes through: kept in memory for the summary and the
 * after-run outputs, streamed to JSON lines and JUnit as it arrives; the run header; the
 * result id and the reproducer. Every write is checked: a report that cannot be written
 * fails the run with a message (rep_finish), never silently. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "jsonl.h"
#include "junit.h"
#include "ref.h"
#include "report_file.h"
#include "text.h"
#include "version.h"

/* Whether a word needs no quoting in a POSIX shell. */
static int shell_plain(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%^", *s))
            return 0;
    return 1;
}

/* Appends " word" to buf (at *at), single-quoted when the shell would read it otherwise. */
static void shell_word(char *buf, size_t len, size_t *at, const char *word)
{
    char *q = NULL;
    size_t qlen = 0;
    FILE *m = open_memstream(&q, &qlen);
    if (!m)
        return;
    fputs(*at ? " " : "", m);
    if (shell_plain(word)) {
        fputs(word, m);
    } else {
        fputc('\'', m);
        for (const char *p = word; *p; p++)
            fputs(*p == '\'' ? "'\\''" : (char[]){*p, 0}, m);
        fputc('\'', m);
    }
    fclose(m);
    if (*at + qlen < len) {
        memcpy(buf + *at, q, qlen + 1);
        *at += qlen;
    } else if (*at < len) {
        txt_copy(buf + *at, len - *at, q);
        *at = len; /* cut: nothing more fits */
    }
    free(q);
}

void rep_header_init(struct run_header *h, int argc, char **argv)
{
    memset(h, 0, sizeof *h);
    /* The words --version prints after "harness": one release number everywhere. */
    txt_copy(h->harness, sizeof h->harness, version_string());
    txt_copy(h->reference, sizeof h->reference, ref_library());
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(h->start, sizeof h->start, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(h->hostname, sizeof h->hostname - 1))
        snprintf(h->hostname, sizeof h->hostname, "unknown");
    if (!getcwd(h->cwd, sizeof h->cwd))
        h->cwd[0] = 0;
    txt_copy(h->exe, sizeof h->exe, argc > 0 && strchr(argv[0], '/') ? argv[0] : "harness");
    size_t at = 0;
    for (int i = 0; i < argc; i++)
        shell_word(h->command, sizeof h->command, &at, i ? argv[i] : h->exe);
}

void rep_result_id(const struct rep_result *r, char *buf, size_t len)
{
    txt_printf(buf, len, "%s:%d:w%d:%s/%s:%s", r->backend, r->device_index, r->width, r->lang, r->kernel, r->case_name);
}

int rep_reproducer(const struct rep_result *r, const struct run_header *h, char *buf, size_t len)
{
    char num[32], kernel[160];
    size_t at = 0;
    buf[0] = 0;
    shell_word(buf, len, &at, h && h->exe[0] ? h->exe : "harness");
    shell_word(buf, len, &at, "run");
    const char *schedule = r->schedule[0] ? r->schedule : h ? h->schedule : "";
    snprintf(num, sizeof num, "%d", r->device_index);
    const char *words[] = {"--backend", r->backend, "--device", num};
    for (size_t i = 0; i < 4; i++)
        shell_word(buf, len, &at, words[i]);
    snprintf(num, sizeof num, "%d", r->width);
    shell_word(buf, len, &at, "--width");
    shell_word(buf, len, &at, num);
    txt_printf(kernel, sizeof kernel, "%s/%s", r->lang, r->kernel);
    shell_word(buf, len, &at, "--kernel");
    shell_word(buf, len, &at, kernel);
    if (!r->group_row) {
        shell_word(buf, len, &at, "--case");
        shell_word(buf, len, &at, r->case_name);
    }
    int cases = h && h->cases[0];
    shell_word(buf, len, &at, cases ? "--cases" : "--tier");
    shell_word(buf, len, &at, cases ? h->cases : h && h->tier[0] ? h->tier : "quick");
    for (int i = 0; h && (r->user_manifest || h->only_manifest) && i < h->n_manifests; i++) {
        shell_word(buf, len, &at, "--manifest");
        shell_word(buf, len, &at, h->manifests[i]);
    }
    if (h && (r->user_manifest || h->only_manifest) && h->n_manifests)
        shell_word(buf, len, &at, "--only-manifest");
    if (h && h->known_bugs[0]) {
        shell_word(buf, len, &at, "--known-bugs");
        shell_word(buf, len, &at, h->known_bugs);
    }
    /* Only the emulator reads --schedule and the other backends ignore it, so the reproducer
     * carries it whatever the backend: the report needs no list of which backend takes it. */
    if (schedule[0]) {
        shell_word(buf, len, &at, "--schedule");
        shell_word(buf, len, &at, schedule);
    }
    if (h && h->guard_bytes && h->guard_bytes != GRD_BYTES) {
        snprintf(num, sizeof num, "%ld", h->guard_bytes / 1024);
        shell_word(buf, len, &at, "--guard-kib");
        shell_word(buf, len, &at, num);
    }
    return at >= len;
}

char *rep_reproducer_text(const struct rep_result *r, const struct run_header *h)
{
    char *cmd = xcalloc(REP_PATH * 8, 1);
    rep_reproducer(r, h, cmd, REP_PATH * 8);
    return cmd;
}

static void write_failed(struct rep_sink *s, const char *what)
{
    if (s->write_failed++)
        return;
    err_set(&s->write_err, "%s: write failed: %s%s", what, strerror(errno ? errno : EIO), rep_file_limit(errno));
}

int rep_open(struct rep_sink *s, const char *json_path, const char *junit_path, const struct run_header *h,
             struct hb_err *err)
{
    memset(s, 0, sizeof *s);
    if (h)
        s->hdr = *h;
    else
        rep_header_init(&s->hdr, 0, NULL);
    if (json_path) {
        if (!(s->json = out_open(json_path))) {
            err_set(err, "%s: cannot write: %s", json_path, strerror(errno));
            return -1;
        }
        errno = 0;
        jsonl_write_header(s->json, &s->hdr);
        if (fflush(s->json) || ferror(s->json)) {
            err_set(err, "%s: cannot write: %s", json_path, strerror(errno ? errno : EIO));
            rep_close(s);
            return -1;
        }
    }
    if (junit_path && !(s->junit = junit_open(junit_path, &s->hdr, err))) {
        rep_close(s);
        return -1;
    }
    return 0;
}

void rep_add(struct rep_sink *s, const struct rep_result *r)
{
    s->counts[r->verdict]++;
    s->all = xgrow(s->all, s->n, &s->cap, sizeof *s->all);
    s->all[s->n++] = *r;
    errno = 0;
    if (s->json && !s->write_failed) {
        jsonl_write(s->json, r);
        if (fflush(s->json) || ferror(s->json))
            write_failed(s, "--json");
    }
    if (s->junit && !s->write_failed && junit_add(s->junit, r, &s->hdr))
        write_failed(s, "--junit");
}

int rep_finish(struct rep_sink *s, int interrupted, struct hb_err *err)
{
    s->interrupted = interrupted;
    errno = 0;
    if (s->json) {
        if (!s->write_failed)
            jsonl_write_end(s->json, s->n, interrupted);
        if ((ferror(s->json) | fclose(s->json)))
            write_failed(s, "--json");
        s->json = NULL;
    }
    if (s->junit &&
        junit_close(s->junit, interrupted ? "the run was interrupted: the results it did not reach are missing" : NULL))
        write_failed(s, "--junit");
    s->junit = NULL;
    if (s->write_failed) {
        *err = s->write_err;
        return -1;
    }
    return 0;
}

int rep_failed(const struct rep_sink *s) { return s->counts[V_FAIL] + s->counts[V_XPASS] + s->counts[V_ERROR] > 0; }

void rep_close(struct rep_sink *s)
{
    if (s->json)
        fclose(s->json);
    if (s->junit) /* not finished by rep_finish: the run stopped on an error */
        junit_close(s->junit, "the run stopped before it finished (an error: see its output)");
    free(s->all);
    s->json = NULL, s->junit = NULL, s->all = NULL;
    s->n = s->cap = 0;
}
