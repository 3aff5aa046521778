/* SPDX-License-Identifier: MIT */
/* fuzz_case.c: libFuzzer target for the case catalogue parser. Whatever the bytes, the
 * parser must return 0 or -1 with a "file:line:" message: no crash, no leak, no UB.
 * `make fuzz` runs it for FUZZ_SECONDS over tests/fuzz/case_corpus. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    struct case_set set = {0};
    struct hb_err err = {{0}};
    int rc = case_parse_text("fuzz.cases", text, &set, &err);
    if (rc != 0 && strncmp(err.msg, "fuzz.cases", 10) != 0 && !strstr(err.msg, ".cases"))
        abort(); /* every error must name the file */
    if (rc == 0)
        for (int i = 0; i < set.n; i++)
            if (!set.c[i].name[0])
                abort();
    case_set_free(&set);
    free(text);
    return 0;
}
