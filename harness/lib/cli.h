/* SPDX-License-Identifier: MIT */
/* cli.h: one option parser for every subcommand, on getopt_long: a table of options per
 * command (name, short letter, argument, setter, help), --opt=value and --opt value alike,
 * repeatable and comma-separated lists, and --help per command printed from the same table.
 * It knows nothing of what the options mean: setters do. */
#ifndef HB_CLI_H
#define HB_CLI_H

#include <stdio.h>

#include "util.h"

struct cli_opt {
    const char *name; /* long name, without "--" */
    int letter;       /* short option, 0 for none */
    const char *arg;  /* the argument's placeholder ("FILE"), NULL for a flag */
    /* Applies the option to dest; value is NULL for a flag. 0, or -1 with err. */
    int (*set)(void *dest, const char *value, struct hb_err *err);
    const char *help; /* NULL: internal, not listed */
};

/* Parses argv[1..] (argv[0] is the command's name) into dest. Arguments that are not options
 * are left in order in argv[*first..argc-1]. Returns 0, 1 when --help was asked for (and
 * printed), or -1 with "--opt: problem" in err. */
int cli_parse(int argc, char **argv, const char *usage, const struct cli_opt *opts, void *dest, int *first,
              struct hb_err *err);
void cli_help(FILE *out, const char *usage, const struct cli_opt *opts);

/* Copies argv[1..argc) into out, without the long options named in drop[0..n_drop) (as
 * "--opt value" or "--opt=value"): how a re-run of this command line (a shard, a sanitized
 * group) leaves out what it must not inherit. Returns the words copied. */
int cli_argv_without(int argc, char **argv, const char *const *drop, int n_drop, char **out);

/* Splits a comma list into at most max copies (strdup'd), appended at list[*n]. -1 when
 * there are too many or an item is empty. */
int cli_list(const char *value, const char **list, int *n, int max);

#endif
