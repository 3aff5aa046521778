/* jsonl.h: reads the harness's own JSON lines (report.c's writer) back into result records,
 * for merging shards, baselines and HTML pages made after the run. It parses that flat format
 * only (strings, numbers, one level of nested objects), not JSON in general; keys it does not
 * know (such as a baseline's "perf_ratio") are skipped. */
#ifndef HB_JSONL_H
#define HB_JSONL_H

#include "report.h"
#include "util.h"

/* Reads every line of path into a malloc'd array (*out, *n; free() it). Blank lines are
 * skipped. On a malformed line returns -1 with "path:line: problem" and nothing allocated. */
int jsonl_read(const char *path, struct rep_result **out, int *n, struct hb_err *err);

/* Parses one line (no newline needed) into r; -1 with the problem (no location) in err. */
int jsonl_parse_line(const char *line, struct rep_result *r, struct hb_err *err);

#endif
