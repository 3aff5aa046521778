/* SPDX-License-Identifier: MIT */
/* sanitize.c: runs a group under CUDA's compute-sanitizer. The forked child execs
 * `compute-sanitizer --tool T <this harness> <same command line> --group-child SPEC`; the
 * sanitized process rebuilds the group (worker.c) and streams over the inherited pipe. The
 * tool's summary in its log becomes a verdict row (supervise.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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
    /* Only what kernels do on the device: the backends' own failing calls are expected (the
     * CUDA backend counts a kernel's parameters by asking until cudaFuncGetParamInfo says no),
     * and a failing launch is the harness's to report. */
    argv[n++] = "--report-api-errors";
    argv[n++] = "no";
    argv[n++] = exe;
    static const char *const not_inherited[] = {"--sanitize"}; /* the child is the sanitized group */
    n += cli_argv_without(o->argc, o->argv, not_inherited, 1, argv + n);
    argv[n++] = "--group-child";
    argv[n++] = spec;
    execvp(tool, argv);
    char why[256];
    snprintf(why, sizeof why, "exec %s: %s (is CUDA's compute-sanitizer on PATH?)", tool, strerror(errno));
    struct msg m;
    msg_group(&m, g->ordinal, HB_ERROR, why);
    msg_send(fd, &m);
    _exit(0);
}

/* The tool's first report: its header ("========= Invalid __global__ read ...") and up to
 * three detail lines, indented further ("at ... file:line", "by thread (x,y,z) in block ...",
 * "Address ... is out of bounds"), joined into first. details: -1 before the header. */
static void san_first_report(char *after_marks, int *details, char *first, size_t len)
{
    int detail = !strncmp(after_marks, "  ", 2);
    char *text = str_trim(after_marks);
    if (!*text || *details >= 3 || (*details < 0 && (detail || !strncmp(text, "COMPUTE-SANITIZER", 17))))
        return;
    if (*details >= 0 && !detail) {
        *details = 3; /* the next report begins: the first is complete */
        return;
    }
    size_t used = strlen(first);
    snprintf(first + used, len - used, "%s%s", *details < 0 ? "" : "; ", text);
    (*details)++;
}

long san_findings(const char *log, char *summary, size_t len)
{
    FILE *f = fopen(log, "r");
    long found = -1;
    summary[0] = 0;
    if (!f)
        return -1;
    char line[1024], total[256] = "", first[512] = "";
    int details = -1;
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "RACECHECK SUMMARY: ");
        /* "ERROR SUMMARY: 108 errors were not printed", after the total, is not the total. */
        if (!at && !strstr(line, "were not printed"))
            at = strstr(line, "ERROR SUMMARY: ");
        if (!at) {
            if (line[0] == '=')
                san_first_report(line + strspn(line, "="), &details, first, sizeof first);
            continue;
        }
        const char *num = strstr(at, ": ") + 2;
        found = strtol(num, NULL, 10);
        snprintf(total, sizeof total, "%s", str_trim(line + (line[0] == '=' ? strspn(line, "= ") : 0)));
    }
    fclose(f);
    snprintf(summary, len, "%s%s%s", total, found > 0 && first[0] ? "; first: " : "", found > 0 ? first : "");
    return found;
}
