/* shard.c: see shard.h. Each shard is this same binary re-run with --shard k/N --device k
 * and its own JSON file; the parent waits for all of them and hands the files to merge,
 * which rebuilds the single JUnit, JSON, HTML and summary. */
#include "shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "merge.h"
#include "probe.h"
#include "run.h"
#include "util.h"

#define SHARD_MAX MAX_DEVICES

/* Whether argv[i] is one of the options a shard must not inherit (reports are the merge's,
 * --devices is this very split); *skip says whether its value is the next word. */
static int shard_drops(const char *a, int *skip)
{
    static const char *const dropped[] = {"--devices", "--junit", "--json", "--html"};
    for (size_t k = 0; k < sizeof dropped / sizeof dropped[0]; k++) {
        size_t n = strlen(dropped[k]);
        if (!strncmp(a, dropped[k], n) && (a[n] == 0 || a[n] == '=')) {
            *skip = a[n] == 0;
            return 1;
        }
    }
    return 0;
}

int shard_devices_all(const struct run_opts *o)
{
    int argc = o->argc;
    char **argv = o->argv;
    const char *backend = o->backends[0], *junit = o->junit, *json = o->json, *html = o->html;
    if (!backend || !ldr_is_known(backend)) {
        fprintf(stderr, "harness: --devices all needs --backend NAME (one backend's devices)\n");
        return EXIT_USAGE;
    }
    struct probe p;
    prb_probe(backend, &p);
    if (p.count <= 0) {
        fprintf(stderr, "harness: backend %s: no usable device: %s\n", backend, p.err[0] ? p.err : "none found");
        return EXIT_NO_DEVICE;
    }
    int n = p.count < SHARD_MAX ? p.count : SHARD_MAX;
    char dir[] = "/tmp/hb-shards-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("harness: mkdtemp");
        return EXIT_USAGE;
    }
    char files[SHARD_MAX][64];
    pid_t pids[SHARD_MAX];
    for (int k = 0; k < n; k++) {
        snprintf(files[k], sizeof files[k], "%s/shard%d.jsonl", dir, k);
        fflush(NULL);
        pids[k] = fork();
        if (pids[k] == 0) {
            char exe[4096], shard[32], device[16];
            snprintf(exe, sizeof exe, "%s/harness", path_exe_dir());
            snprintf(shard, sizeof shard, "%d/%d", k, n);
            snprintf(device, sizeof device, "%d", k);
            char **args = xcalloc((size_t)argc + 12, sizeof *args);
            int m = 0;
            args[m++] = exe;
            for (int i = 1; i < argc; i++) {
                int skip = 0;
                if (shard_drops(argv[i], &skip))
                    i += skip;
                else
                    args[m++] = argv[i];
            }
            char *extra[] = {"--shard", shard, "--device", device, "--json", files[k], "--quiet"};
            for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++)
                args[m++] = extra[e];
            execv(exe, args);
            perror("harness: exec shard");
            _exit(EXIT_USAGE);
        }
    }
    int worst = EXIT_OK;
    for (int k = 0; k < n; k++) {
        int status = 0;
        waitpid(pids[k], &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURES;
        if (code == EXIT_USAGE || code == EXIT_NO_DEVICE)
            worst = code;
    }
    if (worst != EXIT_OK)
        return worst;
    printf("\nharness: %d device shards done; merged report:\n", n);
    struct merge_opts mo;
    memset(&mo, 0, sizeof mo);
    const char *inputs[SHARD_MAX];
    for (int k = 0; k < n; k++)
        inputs[k] = files[k];
    mo.junit = junit, mo.json = json, mo.out.html = html;
    base_opts_init(&mo.out.base);
    mo.inputs = inputs, mo.n_inputs = n;
    int code = merge_files(&mo);
    for (int k = 0; k < n; k++)
        unlink(files[k]);
    rmdir(dir);
    return code;
}
