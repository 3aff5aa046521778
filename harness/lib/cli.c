/* SPDX-License-Identifier: MIT */
/* cli.c: see cli.h. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_OPTS 64

int cli_list(const char *value, const char **list, int *n, int max)
{
    char *copy = xstrdup(value);
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        tok = str_trim(tok);
        if (!*tok || *n == max) {
            rc = -1;
            break;
        }
        list[(*n)++] = xstrdup(tok);
    }
    if (!rc && (!*value || value[strlen(value) - 1] == ','))
        rc = -1;
    free(copy);
    return rc;
}

int cli_argv_without(int argc, char **argv, const char *const *drop, int n_drop, char **out)
{
    int m = 0;
    for (int i = 1; i < argc; i++) {
        int dropped = 0;
        for (int k = 0; k < n_drop && !dropped; k++) {
            size_t n = strlen(drop[k]);
            if (!strncmp(argv[i], drop[k], n) && (argv[i][n] == 0 || argv[i][n] == '=')) {
                dropped = 1;
                i += argv[i][n] == 0; /* its value is the next word */
            }
        }
        if (!dropped)
            out[m++] = argv[i];
    }
    return m;
}

/* Prints text wrapped at `width` columns, continuation lines indented by `indent`. */
static void cli_wrap(FILE *out, const char *text, int indent, int width)
{
    int col = indent;
    for (const char *p = text; *p;) {
        size_t word = strcspn(p, " ");
        if (col > indent && col + 1 + (int)word > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out), col++;
        }
        fwrite(p, 1, word, out);
        col += (int)word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

void cli_help(FILE *out, const char *usage, const struct cli_opt *opts)
{
    fputs(usage, out);
    fputs("\noptions:\n", out);
    for (const struct cli_opt *o = opts; o->name; o++) {
        if (!o->help)
            continue;
        char head[64], letter[8] = "    ";
        if (o->letter)
            snprintf(letter, sizeof letter, "-%c, ", o->letter);
        snprintf(head, sizeof head, "%s--%s%s%s", letter, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(out, "  %-28s ", head);
        cli_wrap(out, o->help, 31, 100);
    }
    fputs("  -h, --help                   this text\n", out);
}

/* What is wrong with `bad` (as typed): a value missing, a prefix that fits several long
 * options (named), or no option at all (the closest name, when a typo explains it). */
static void cli_bad_option(const char *bad, int missing_value, const struct cli_opt *opts, const char *cmd,
                           struct hb_err *err)
{
    if (missing_value) {
        err_set(err, "%s: needs a value (see harness %s --help)", bad, cmd);
        return;
    }
    const char *names[CLI_MAX_OPTS + 1];
    int n = 0;
    for (const struct cli_opt *o = opts; o->name && n < CLI_MAX_OPTS; o++)
        names[n++] = o->name;
    names[n++] = "help";
    char typed[128] = "";
    if (!strncmp(bad, "--", 2))
        snprintf(typed, sizeof typed, "%.*s", (int)strcspn(bad + 2, "="), bad + 2);
    char fits[512] = "";
    int n_fits = 0;
    for (int i = 0; typed[0] && i < n; i++)
        if (!strncmp(names[i], typed, strlen(typed))) {
            size_t at = strlen(fits);
            snprintf(fits + at, sizeof fits - at, "%s--%s", n_fits++ ? ", " : "", names[i]);
        }
    const char *near = typed[0] ? str_closest(typed, names, n) : NULL;
    if (n_fits > 1)
        err_set(err, "--%s: ambiguous: it begins %s (see harness %s --help)", typed, fits, cmd);
    else if (near)
        err_set(err, "%s: unknown option; did you mean --%s? (see harness %s --help)", bad, near, cmd);
    else
        err_set(err, "%s: unknown option (see harness %s --help)", bad, cmd);
}

int cli_parse(int argc, char **argv, const char *usage, const struct cli_opt *opts, void *dest, int *first,
              struct hb_err *err)
{
    struct option longs[CLI_MAX_OPTS + 2];
    char shorts[2 * CLI_MAX_OPTS + 4] = ":h";
    int n = 0;
    for (const struct cli_opt *o = opts; o->name && n < CLI_MAX_OPTS; o++, n++) {
        longs[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, 256 + n};
        if (o->letter) {
            size_t len = strlen(shorts);
            shorts[len] = (char)o->letter;
            shorts[len + 1] = o->arg ? ':' : 0;
            shorts[len + 2] = 0;
        }
    }
    longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[n] = (struct option){NULL, 0, NULL, 0};
    /* 0, not 1: glibc then starts afresh (its permutation state), as a second parse in one
     * process (the tests) needs. */
    optind = 0, opterr = 0;
    for (int c; (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1;) {
        if (c == 'h') {
            cli_help(stdout, usage, opts);
            return 1;
        }
        if (c == '?' || c == ':') {
            cli_bad_option(argv[optind - 1], c == ':', opts, argv[0], err);
            return -1;
        }
        const struct cli_opt *o = NULL;
        for (int i = 0; opts[i].name && !o; i++)
            if (c == 256 + i || c == opts[i].letter)
                o = &opts[i];
        struct hb_err inner = {{0}};
        if (o->set(dest, o->arg ? optarg : NULL, &inner)) {
            err_set(err, "--%s%s%s: %.900s", o->name, o->arg ? " " : "", o->arg ? optarg : "", inner.msg);
            return -1;
        }
    }
    *first = optind;
    return 0;
}
