/* manifest_values.h: parsers of the manifest values that are more than a word
 * (manifest_values.c), for manifest_parse.c. Each returns 0, or -1 with err naming `where`. */
#ifndef HB_MANIFEST_VALUES_H
#define HB_MANIFEST_VALUES_H

#include "manifest.h"

int parse_block(const char *val, unsigned block[3], const char *where, struct hb_err *err);
int parse_grid(const char *val, enum hb_op op, struct kern_grid_term grid[3], const char *where, struct hb_err *err);
int parse_widths(const char *val, struct kern_desc *k, const char *where, struct hb_err *err);
int parse_expect(const char *val, unsigned *out, const char *where, struct hb_err *err);
/* `args`: the kernel's parameters in its order; every buffer of the op must be among them. */
int parse_args(const char *val, struct kern_desc *k, const char *where, struct hb_err *err);
/* `includes`: folders relative to dir (the manifest's), each one that exists. */
int parse_includes(const char *val, const char *dir, struct kern_desc *k, const char *where, struct hb_err *err);
/* `defines`: NAME or NAME=VALUE words. */
int parse_defines(const char *val, struct kern_desc *k, const char *where, struct hb_err *err);

#endif
