/* verdict.c: names of ops, verdicts and failure classes (see verdict.h). */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

static const char *const op_names[OP_COUNT] = {"sgemm", "reduce", "sgemm_strided"};
static const char *const verdict_names[V_COUNT] = {"PASS", "SUSPECT", "FAIL", "XFAIL",
                                                   "XPASS", "SKIP", "ERROR"};
static const char *const class_names_tab[CLS_COUNT] = {
    "wrong", "nan-mismatch", "unwritten", "oob", "input-modified",
    "nondeterministic", "timeout", "crash", "api-error", "oob-read"};

const char *op_name(enum hb_op op) { return op < OP_COUNT ? op_names[op] : "?"; }

int op_parse(const char *s, enum hb_op *out)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (!strcmp(s, op_names[i])) {
            *out = (enum hb_op)i;
            return 0;
        }
    return -1;
}

int op_is_gemm(enum hb_op op) { return op == OP_SGEMM || op == OP_SGEMM_STRIDED; }

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
