/* SPDX-License-Identifier: MIT */
/* jsonl_table.h: the one list of JSON fields, walked by the writer (jsonl_write.c) and the
 * reader (jsonl.c) alike, so a new field is one line in jsonl_write.c's tables; and the sizes
 * and scalars in their columns (jsonl_sizes.c). Private to those three files. */
#ifndef HB_JSONL_TABLE_H
#define HB_JSONL_TABLE_H

#include <stddef.h>

#include "report.h"

enum jf_type {
    JF_TEXT,    /* char[size], UTF-8 */
    JF_INT,     /* int */
    JF_LONG,    /* long */
    JF_U64,     /* uint64_t counts, as a number (always below 2^53) */
    JF_U64_STR, /* uint64_t seeds, as a decimal string (jq and JavaScript lose bits past 2^53) */
    JF_HASH,    /* uint64_t hashes, as 16 hex digits */
    JF_DOUBLE,  /* double; non-finite values as the strings "nan", "inf", "-inf" */
    JF_FLOAT,   /* float, likewise */
    JF_BOOL,    /* int written as true or false */
    JF_HEAT,    /* the heat map: CMP_HEAT^2 bytes as hex */
    JF_VERDICT, /* enum hb_verdict by name */
    JF_OP,      /* enum hb_op by name */
    JF_CLASSES, /* class bits as "wrong+oob" */
    JF_PATHS,   /* run_header.manifests[n_manifests] as an array of strings */
    /* rep_result's sizes and scalars, by name (the field's key): */
    JF_SIZE,       /* one size column, a long: 0 where the op has no such size or names its own */
    JF_SIZES_TEXT, /* an op's own size names and values: "rows=4 cols=7" */
    JF_SCALAR,     /* one scalar column, a float */
};

/* A field `key` at `off` in the record (or inside the nested object `object`). Fields of one
 * nested object stand together in the table and share `present`. */
struct jf_field {
    const char *key;
    const char *object;
    enum jf_type type;
    size_t off, size;
    int required;
    int (*present)(const void *rec); /* NULL: always written */
};

/* A result's sizes and scalars in their columns and text, and back (jsonl_sizes.c): what the
 * writer puts for a JF_SIZE, JF_SIZES_TEXT or JF_SCALAR field, and what the reader sets from a
 * value it has checked; each setter returns 0, or -1 with err. */
long jf_size_column(const struct rep_result *r, const char *key);
void jf_sizes_text(const struct rep_result *r, char *buf, size_t len);
float jf_scalar(const struct rep_result *r, const char *key);
int jf_set_size(struct rep_result *r, const char *key, long value, struct hb_err *err);
int jf_set_sizes_text(struct rep_result *r, const char *key, char *text, struct hb_err *err);
int jf_set_scalar(struct rep_result *r, const char *key, double value, struct hb_err *err);

extern const struct jf_field jf_result[];
extern const size_t jf_result_n;
extern const struct jf_field jf_header[];
extern const size_t jf_header_n;

#endif
