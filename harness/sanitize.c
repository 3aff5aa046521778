/* sanitize.c: runs a group under CUDA's compute-sanitizer. The forked child execs
 * `compute-sanitizer --tool T <this harness> <same command line> --group-child SPEC`; the
 * sanitized process rebuilds the group (worker.c) and streams over the inherited pipe. The
 * tool's summary in its log becomes a verdict row (supervise.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

void san_exec(const struct run_ctx *cx, const struct group *g, int start, int fd, const char *log)
{
    const struct run_opts *o = cx->o;
    char spec[256], fd_text[16];
    snprintf(spec, sizeof spec, "%s:%d:%d:%s/%s:%d:%d", g->p->name, g->device, g->width.width, g->k->lang, g->k->name,
             start, g->ordinal);
    snprintf(fd_text, sizeof fd_text, "%d", fd);
    setenv("HB_CHILD_FD", fd_text, 1);
    const char *tool = getenv("COMPUTE_SANITIZER") ? getenv("COMPUTE_SANITIZER") : "compute-sanitizer";
    char exe[4096];
    snprintf(exe, sizeof exe, "%s/harness", path_exe_dir());
    char **argv = xcalloc((size_t)o->argc + 12, sizeof *argv);
    int n = 0;
    argv[n++] = (char *)tool;
    argv[n++] = "--tool";
    argv[n++] = (char *)o->sanitize;
    argv[n++] = "--log-file";
    argv[n++] = (char *)log;
    argv[n++] = "--print-limit";
    argv[n++] = "20";
    argv[n++] = exe;
    for (int i = 1; i < o->argc; i++) {
        if (!strcmp(o->argv[i], "--sanitize")) {
            i++;
            continue;
        }
        if (!strncmp(o->argv[i], "--sanitize=", 11))
            continue;
        argv[n++] = o->argv[i];
    }
    argv[n++] = "--group-child";
    argv[n++] = spec;
    execvp(tool, argv);
    char why[256];
    snprintf(why, sizeof why, "exec %s: %s (is CUDA's compute-sanitizer on PATH?)", tool, strerror(errno));
    wk_send_group_row(fd, g, V_ERROR, CLS_API, why);
    _exit(0);
}

long san_findings(const char *log, char *summary, size_t len)
{
    FILE *f = fopen(log, "r");
    long found = -1;
    summary[0] = 0;
    if (!f)
        return -1;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "RACECHECK SUMMARY: ");
        if (!at)
            at = strstr(line, "ERROR SUMMARY: ");
        if (!at)
            continue;
        const char *num = strstr(at, ": ") + 2;
        found = strtol(num, NULL, 10);
        snprintf(summary, len, "%s", str_trim(line + (line[0] == '=' ? strspn(line, "= ") : 0)));
    }
    fclose(f);
    return found;
}
