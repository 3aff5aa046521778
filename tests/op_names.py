#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/op_names.py: an op is one file (harness/core/op.h). Counts, in every harness file
# outside an op's own, each use of an op: an op constant (enum hb_op, as op.h lists it), an op's
# name in a string ("sgemm", or a message that types it), or one of its size or scalar keys
# looked up by name (case_size(c, "M")). What counts as an op, a name or a key is read from
# the op files themselves, so a new op is counted as soon as it exists. Prints each use and
# exits 1 when there is one. Usage: op_names.py [ROOT] (default: the current folder).
import fnmatch
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
core = os.path.join(root, "harness", "core")
# An op's own files: the table (op.c, op.h), op_<name>*, and the older families' files.
OWN = ["op.c", "op.h", "op_*", "reduce*", "custom*"]
# Strings that hold an op's name without meaning the op: the backend interface's call
# hb_backend.vendor_sgemm, as the testbed names a call that failed.
NOT_THE_OP = {'"vendor sgemm"'}
LAYERS = ("abi", "lib", "core", "report", "run", "cmd")


def own(name):
    return any(fnmatch.fnmatch(name, p) for p in OWN)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


enum = re.search(r"enum hb_op \{([^}]*)\}", open(os.path.join(core, "op.h"), encoding="utf-8").read())
consts = [c for c in re.findall(r"\bOP_[A-Z0-9_]+", enum.group(1)) if c != "OP_COUNT"]
names, keys = set(), set()
for f in sorted(os.listdir(core)):
    if own(f) and f.endswith(".c"):
        text = open(os.path.join(core, f), encoding="utf-8").read()
        names |= set(re.findall(r'\.name = "([^"]+)"', text))
        for words in re.findall(r'\.(?:size_keys|scalar_keys|required_keys|shrink_keys) = "([^"]*)"', text):
            keys |= set(words.split())
if not consts or not names or not keys:
    sys.exit(f"op_names.py: found no ops in {core}")
const_re = re.compile(r"\b(?:%s)\b" % "|".join(consts))
# An op's name as a word of a string: "sgemm", "... applies to reduce only"; not "reduce-n" or
# "custom.h".
name_re = re.compile(r"(?<![\w/.-])(?:%s)(?![\w/.-])" % "|".join(re.escape(n) for n in sorted(names)))
key_re = re.compile(r'\bcase_(?:size|scalar)\w*\([^;]*?"(?:%s)"' % "|".join(re.escape(k) for k in sorted(keys)))
uses = []
for layer in LAYERS:
    folder = os.path.join(root, "harness", layer)
    for f in sorted(os.listdir(folder)):
        if not f.endswith((".c", ".h")) or (layer == "core" and own(f)):
            continue
        text = strip_comments(open(os.path.join(folder, f), encoding="utf-8").read())
        for n, line in enumerate(text.split("\n"), 1):
            if re.match(r"\s*#\s*include", line):
                continue
            found = const_re.findall(line) + key_re.findall(line)
            found += [s for s in re.findall(r'"(?:[^"\\]|\\.)*"', line) if name_re.search(s) and s not in NOT_THE_OP]
            uses += [f"harness/{layer}/{f}:{n}: {u}" for u in found]
print("\n".join(uses))
print(f"{len(uses)} uses of an op outside its own files ({len(consts)} op constants, {len(names)} names, "
      f"{len(keys)} size and scalar keys)", file=sys.stderr)
sys.exit(1 if uses else 0)
