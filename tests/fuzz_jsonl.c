/* SPDX-License-Identifier: MIT */
/* fuzz_jsonl.c: libFuzzer target for the JSON lines reader (jsonl.c over json-c). Whatever
 * the bytes, jsonl_read_run must return 0 or -1 with "path:line: problem", and whatever it
 * accepts must write back as lines it reads again to the same records: no crash, no leak,
 * no UB, no record the writer cannot reproduce. `make fuzz` runs it over
 * tests/fuzz/jsonl_corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"

static char *scratch(void)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/hb-fuzz-jsonl-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
    }
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = scratch();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    static struct jsonl_run run, again;
    struct hb_err err = {{0}};
    if (jsonl_read_run(path, &run, &err)) {
        if (strncmp(err.msg, path, strlen(path)))
            abort(); /* every error names the file */
        return 0;
    }
    /* What was read writes back and reads again the same. */
    f = fopen(path, "wb");
    if (!f)
        abort();
    for (int i = 0; i < run.n; i++)
        jsonl_write(f, &run.results[i]);
    fclose(f);
    if (jsonl_read_run(path, &again, &err) || again.n != run.n)
        abort();
    for (int i = 0; i < run.n; i++)
        if (strcmp(again.results[i].why, run.results[i].why) || again.results[i].seed != run.results[i].seed ||
            case_size_of(again.results[i].sizes, again.results[i].n_sizes, "lda") !=
                case_size_of(run.results[i].sizes, run.results[i].n_sizes, "lda"))
            abort();
    jsonl_run_free(&again);
    jsonl_run_free(&run);
    return 0;
}
