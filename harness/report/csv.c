/* SPDX-License-Identifier: MIT */
/* csv.c: see csv.h. */
#include "csv.h"

#include <string.h>

/* deqp-runner's status words, so tools written for its results.csv read these. */
static const char *csv_status(const struct rep_result *r)
{
    switch (r->verdict) {
    case V_PASS: return "Pass";
    case V_SUSPECT: return "Warn";
    case V_XFAIL: return "ExpectedFail";
    case V_XPASS: return "UnexpectedPass";
    case V_SKIP: return "Skip";
    case V_ERROR: return r->cmp.classes & CLS_TIMEOUT ? "Timeout" : r->cmp.classes & CLS_CRASH ? "Crash" : "Fail";
    default: return "Fail";
    }
}

/* RFC 4180: quoted, with quotes doubled; line breaks kept inside the quotes. */
static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void rep_write_csv(FILE *f, const struct rep_sink *s)
{
    for (int i = 0; i < s->n; i++) {
        const struct rep_result *r = &s->all[i];
        char id[1024], classes[128], detail[2048];
        rep_result_id(r, id, sizeof id);
        class_names(r->cmp.classes, classes, sizeof classes);
        rep_describe(r, detail, sizeof detail);
        csv_field(f, id);
        fprintf(f, ",%s,%.3f,", csv_status(r), r->child_ms > 0 ? r->child_ms / 1e3 : 0.0);
        csv_field(f, verdict_name(r->verdict));
        fputc(',', f);
        csv_field(f, classes);
        fputc(',', f);
        csv_field(f, detail[0] == ';' ? detail + 2 : detail); /* a PASS row's figures lead with "; " */
        fputc('\n', f);
    }
}
