#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""merged_ir.py BEFORE.ll AFTER.ll FUNCTION=SPANS:KEPT:ARGS...: checks what the check-merging
pass (harness/backends/sim/sim_merge_checks.cc) made of each function: SPANS span checks, KEPT
access hooks left in its merged copies (blocks named *.merged), ARGS hooks in all turned into
checks of a pointer argument's address (__sim_check_argument), and every hook the function
had before still in its original blocks, so that a span check that fails checks as before.
Prints one line a function; exits 1 if any differs."""
import re
import sys

HOOK = re.compile(r"call void @(?:__tsan_(?:unaligned_)?(?:volatile_)?(?:read|write)\d+|__sim_check_argument)\(")


def functions(path):
    """{name: [(block label, [lines])]} from LLVM's textual IR."""
    out, name, blocks = {}, None, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"define .*@([\w.]+)\(", line)
        if m:
            name, blocks = m.group(1), [("entry", [])]
            out[name] = blocks
        elif name and line.startswith("}"):
            name = None
        elif name:
            label = re.match(r"^([\w.\-]+):", line)
            if label:
                blocks.append((label.group(1), []))
            else:
                blocks[-1][1].append(line)
    return out


def hooks(lines):
    return sum(1 for line in lines if HOOK.search(line))


def main():
    before, after = functions(sys.argv[1]), functions(sys.argv[2])
    failed = 0
    for want in sys.argv[3:]:
        name, counts = want.split("=")
        spans, kept, args = (int(x) for x in counts.split(":"))
        blocks = after.get(name, [])
        got_spans = sum(line.count("call i32 @__sim_span_ok(") for _, lines in blocks for line in lines)
        got_kept = sum(hooks(lines) for label, lines in blocks if label.endswith(".merged"))
        original = sum(hooks(lines) for label, lines in blocks if not label.endswith(".merged"))
        had = sum(hooks(lines) for _, lines in before.get(name, []))
        got_args = sum(line.count("call void @__sim_check_argument(") for _, lines in blocks for line in lines)
        ok = blocks and got_spans == spans and got_kept == kept and got_args == args and original == had
        failed += not ok
        print(f"{'ok' if ok else 'FAILED'}: {name}: {got_spans} span checks (want {spans}), {got_kept} hooks"
              f" in merged copies (want {kept}), {got_args} argument checks (want {args}), {original} of its {had}"
              " hooks in the original blocks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
