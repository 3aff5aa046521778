#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""same_results.py: whether two runs gave the same results, bit for bit, timing aside.

    tests/same_results.py A.jsonl B.jsonl [A.xml B.xml]

Compares two --json reports record by record, ignoring only the timing fields (kernel_ms,
child_ms) and what says when and how the run was started (the header's start and command),
and optionally two --junit files ignoring the same: time and timestamp attributes, the command
property. Prints the first
differences and exits 1 if there are any: serial vs -j, or before vs after a change."""
import json
import re
import sys

TIMING = ("kernel_ms", "first_launch_ms", "child_ms", "start", "command")


def rows(path):
    out = []
    for line in open(path):
        r = json.loads(line)
        for k in TIMING:
            r.pop(k, None)
        out.append(r)
    return out


def main(argv):
    a, b = rows(argv[1]), rows(argv[2])
    bad = 0
    if len(a) != len(b):
        print("%s: %d records, %s: %d" % (argv[1], len(a), argv[2], len(b)))
        bad += 1
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and bad < 10:
            diff = {k: (x.get(k), y.get(k)) for k in set(x) | set(y) if x.get(k) != y.get(k)}
            print("record %d (%s/%s w%s %s): %s" % (i, x.get("lang"), x.get("kernel"), x.get("width"), x.get("case"), diff))
        bad += x != y
    if len(argv) > 4:
        def untimed(path):
            text = re.sub(r' (time|timestamp)="[^"]*"', "", open(path).read())
            return re.sub(r'<property name="command" value="[^"]*"/>', "", text)

        if untimed(argv[3]) != untimed(argv[4]):
            print("JUnit files differ beyond their time attributes")
            bad += 1
    print("%d records: %s" % (len(a), "identical apart from timing" if not bad else "%d differences" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
