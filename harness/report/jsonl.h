/* SPDX-License-Identifier: MIT */
/* jsonl.h: the harness's JSON lines, written and read with one field table (jsonl_table.h,
 * its entries in jsonl_write.c; docs/json-schema.md describes every field). A file holds a
 * header record (what the run was), one record per result, and an end record (how many
 * results, whether the run was interrupted); every record carries "schema". Reading uses
 * json-c; a line is a record only if it is one JSON object whose fields have the table's types. */
#ifndef HB_JSONL_H
#define HB_JSONL_H

#include <stdio.h>

#include "report.h"
#include "util.h"

/* Version of the record layout. 1: the unversioned lines before it (read, never written). */
#define JSONL_SCHEMA 2
/* Longest line read: a result is a few KiB; anything far longer is not this format. */
#define JSONL_LINE_MAX (1L << 20)

/* Writers: one line each, exactly as --json writes them. */
void jsonl_write(FILE *out, const struct rep_result *r);
void jsonl_write_header(FILE *out, const struct run_header *h);
void jsonl_write_end(FILE *out, int results, int interrupted);
/* A JSON string: escapes, and invalid UTF-8 written as U+FFFD so the line stays valid. */
void jsonl_string(FILE *out, const char *s);

/* Everything a file holds. */
struct jsonl_run {
    struct rep_result *results;
    int n;
    int schema; /* highest schema seen, 1 for unversioned lines */
    int has_header;
    struct run_header header;
    int has_end;
    long end_results; /* the count the end record states */
    int interrupted;  /* the end record says the run was interrupted */
};

/* Reads every line of path. Blank lines are skipped; a line with a NUL byte, longer than
 * JSONL_LINE_MAX, or not a record of this format is an error "path:line: problem" with
 * nothing kept. Free with jsonl_run_free. */
int jsonl_read_run(const char *path, struct jsonl_run *run, struct hb_err *err);
void jsonl_run_free(struct jsonl_run *run);

/* Why a file read by jsonl_read_run is not a whole run (empty, no header, no end record, an
 * end record whose count differs), or NULL when it is. An interrupted run's file is whole:
 * what it covers is its end record's to say. */
const char *jsonl_run_incomplete(const struct jsonl_run *run);

/* The results of path alone, in a malloc'd array (*out, *n; free() it): as jsonl_read_run,
 * without asking for a header or an end record. */
int jsonl_read(const char *path, struct rep_result **out, int *n, struct hb_err *err);

/* Parses one line (no newline needed) that must be a result record; -1 with the problem (no
 * location) in err. */
int jsonl_parse_line(const char *line, struct rep_result *r, struct hb_err *err);

#endif
