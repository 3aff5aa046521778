/* merge.h: `harness merge`: joins the JSON lines of sharded runs (--shard i/n on n runners)
 * into one report, as if one run had produced them. It runs nothing on a device. */
#ifndef HB_MERGE_H
#define HB_MERGE_H

/* harness merge [--junit F] [--json F] [--html F] [--record F] [--compare F
 *               [--fail-on-bit-change] [--perf-threshold PCT]] IN.jsonl...
 * argv[1] is "merge". Returns 0, 1 (a FAIL, XPASS or ERROR, or a failing baseline
 * difference) or 2 (bad usage or an unreadable input). */
int merge_main(int argc, char **argv);

#endif
