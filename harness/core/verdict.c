/* SPDX-License-Identifier: MIT */
/* verdict.c: the one place a verdict is decided (see verdict.h), and the names of verdicts
 * and classes. The figures it reads come from compare.c; it measures nothing itself. */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "known.h"

static const char *const verdict_names[V_COUNT] = {"PASS", "SUSPECT", "FAIL", "XFAIL", "XPASS", "SKIP", "ERROR"};
static const char *const class_names_tab[CLS_COUNT] = {
    "wrong",   "nan-mismatch", "unwritten", "oob",      "input-modified",  "nondeterministic",
    "timeout", "crash",        "api-error", "oob-read", "reference-error", "no-case"};

const char *verdict_name(enum hb_verdict v) { return v < V_COUNT ? verdict_names[v] : "?"; }

int verdict_fails_run(enum hb_verdict v) { return v == V_FAIL || v == V_XPASS || v == V_ERROR; }

void class_names(unsigned classes, char *buf, unsigned len)
{
    buf[0] = 0;
    unsigned used = 0;
    for (int i = 0; i < CLS_COUNT; i++) {
        if (!(classes & (1u << i)))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", class_names_tab[i]);
        if (n < 0 || (unsigned)n >= len - used)
            return;
        used += (unsigned)n;
    }
}

int class_parse(const char *s, unsigned *out)
{
    for (int i = 0; i < CLS_COUNT; i++)
        if (!strcmp(s, class_names_tab[i])) {
            *out = 1u << i;
            return 0;
        }
    return -1;
}

/* A kernel that claims to be right: any class fails it, the grey band is SUSPECT. */
static enum hb_verdict judge_claimed_good(const struct cmp_result *r, const char *seen, char *why, unsigned why_len)
{
    if (r->classes) {
        /* Launches that differ while each is right, and nothing else wrong: the remedy is the
         * manifest's, when the kernel is nondeterministic by design. */
        snprintf(why, why_len, "%s%s", seen,
                 r->classes == CLS_NONDET && r->repeats_within
                     ? " (the launches differ bitwise but each is within the bound: if the kernel is "
                       "nondeterministic by design, as atomics make it, its manifest says deterministic = no)"
                     : "");
        return r->classes & CLS_ERRORS ? V_ERROR : V_FAIL;
    }
    if (r->suspect && r->overflowed) {
        snprintf(why, why_len, "%ld elements overflowed to Inf/NaN where terms reach FLT_MAX: an fp32 order may",
                 r->overflowed);
        return V_SUSPECT;
    }
    if (r->suspect) {
        snprintf(why, why_len, "ratio %.3g in the grey band above %.3g", r->max_ratio, r->threshold);
        return V_SUSPECT;
    }
    return V_PASS;
}

/* A canary with the classes it must produce: those catch it, others are a wrong catch. */
static enum hb_verdict judge_canary(const struct cmp_result *r, unsigned expect, const char *seen, char *why,
                                    unsigned why_len)
{
    char wanted[128];
    class_names(expect, wanted, sizeof wanted);
    if (r->classes & expect) {
        snprintf(why, why_len, "caught as expected: %s", seen);
        return V_XFAIL;
    }
    if (r->classes) {
        snprintf(why, why_len, "expected %s, got %s", wanted, seen);
        return (r->classes & CLS_ERRORS) ? V_ERROR : V_FAIL;
    }
    snprintf(why, why_len, "known-bad kernel was right on this case");
    return V_PASS;
}

/* A kernel run at a width it was not written for (or a listed bug): any wrongness catches it,
 * but an error is still an error. */
static enum hb_verdict judge_off_width(const struct cmp_result *r, const char *seen, char *why, unsigned why_len)
{
    if (r->classes & CLS_ERRORS) {
        snprintf(why, why_len, "%s", seen);
        return V_ERROR;
    }
    if (r->classes || r->suspect) {
        snprintf(why, why_len, "caught at an off width: %s", r->classes ? seen : "suspect");
        return V_XFAIL;
    }
    snprintf(why, why_len, "known-bad kernel was right on this case");
    return V_PASS;
}

static enum hb_verdict verdict_judge(const struct cmp_result *r, int expected_bad, unsigned expect,
                                     const struct known_bug *bug, char *why, unsigned why_len)
{
    char seen[128];
    class_names(r->classes, seen, sizeof seen);
    why[0] = 0;
    enum hb_verdict v;
    if (!expected_bad && !bug)
        return judge_claimed_good(r, seen, why, why_len);
    if (expect && !bug)
        v = judge_canary(r, expect, seen, why, why_len);
    else
        v = judge_off_width(r, seen, why, why_len);
    if (bug && bug->flaky && v == V_PASS)
        return V_PASS; /* a flake may pass */
    /* A listed bug that no longer shows is an XPASS: the list asks for its line to go. */
    if (bug && v == V_PASS) {
        snprintf(why, why_len, "known bug no longer reproduces: remove %.100s:%d", bug->file, bug->line);
        return V_XPASS;
    }
    if (bug && v == V_XFAIL)
        snprintf(why, why_len, "%s: %.200s", bug->flaky ? "known flake" : "known bug", bug->reason);
    return v;
}

/* What a kernel declared by design: its classes leave the verdict, and the reason says what
 * was seen (the repeats' ULP spread). */
static void note_allowed(const struct cmp_result *r, unsigned allowed, char *why, unsigned why_len)
{
    if (!(r->classes & allowed & CLS_NONDET))
        return;
    size_t used = strlen(why);
    snprintf(why + used, why_len - used, "%srepeats differ by up to %llu ULP (deterministic = no)", used ? "; " : "",
             (unsigned long long)r->repeat_ulp);
}

enum hb_verdict verdict_case(const struct cmp_result *r, int expected_bad, unsigned expect, unsigned allowed,
                             const struct known_bug *bug, char *why, unsigned why_len)
{
    struct cmp_result declared = *r;
    declared.classes &= ~allowed;
    enum hb_verdict v = verdict_judge(&declared, expected_bad, expect, bug, why, why_len);
    if (v == V_PASS || v == V_SUSPECT || v == V_XFAIL)
        note_allowed(r, allowed, why, why_len);
    return v;
}

int verdict_group_xpass(int ran, int passed) { return ran > 0 && passed == ran; }
