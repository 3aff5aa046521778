/* SPDX-License-Identifier: MIT */
/* manifest_values.h: the value grammars of manifest keys (manifest_values.c), for the manifest
 * reader (manifest_parse.c) alone. Each returns 0, or -1 with "where: problem" in err. */
#ifndef HB_MANIFEST_VALUES_H
#define HB_MANIFEST_VALUES_H

#include "manifest.h"

int kern_parse_block(const char *val, unsigned block[3], const char *where, struct hb_err *err);
int kern_parse_grid(const char *val, enum hb_op op, struct kern_grid_term grid[3], const char *where,
                    struct hb_err *err);
int kern_parse_widths(const char *val, struct kern_desc *k, const char *where, struct hb_err *err);
int kern_parse_expect(const char *val, unsigned *out, const char *where, struct hb_err *err);
/* `args`: the kernel's parameters in its order, words of its vocabulary (kern_params). */
int kern_parse_args(const char *val, struct kern_desc *k, const char *where, struct hb_err *err);
/* `includes`: folders relative to dir (the manifest's), each one that exists. */
int kern_parse_includes(const char *val, const char *dir, struct kern_desc *k, const char *where, struct hb_err *err);
/* `defines`: NAME or NAME=VALUE words. */
int kern_parse_defines(const char *val, struct kern_desc *k, const char *where, struct hb_err *err);

#endif
