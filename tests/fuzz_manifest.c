/* SPDX-License-Identifier: MIT */
/* fuzz_manifest.c: libFuzzer target for the manifest parser (manifest_parse.c). Whatever the
 * bytes, kern_parse_file must return 0 or -1 with a message naming the file: no crash, no
 * leak, no UB. The parser reads files only, so each input goes through one scratch file.
 * `make fuzz` runs it for FUZZ_SECONDS over tests/fuzz/manifest_corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/hb-fuzz-manifest-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    struct kern_set set = {0};
    struct hb_err err = {{0}};
    int rc = kern_parse_file(path, &set, &err);
    if (rc != 0 && !strstr(err.msg, path) && !strstr(err.msg, ".manifest") && !strstr(err.msg, "include"))
        abort(); /* every error must say where */
    for (int i = 0; rc == 0 && i < set.n; i++)
        if (!set.k[i].name || !set.k[i].name[0])
            abort();
    kern_set_free(&set);
    return 0;
}
