#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""emulator_bench.py: the emulator's speed on issue 31's kernels and sizes, as ratios measured in
one run: each harness given (say main's and a branch's) and, when given, a peer (HIP-CPU) are
run in turn, round after round, and each figure is the best of its rounds, so that load from
other work on the machine weighs on every column alike.

For each kernel and size it prints the emulator's fastest launch under the default schedule
(an unchecked random-schedule repeat), its fastest under --schedule lockstep, its checked first
launch (JSON first_launch_ms) and, with --peer, the peer's time and each of those over it.

The peer is any command: --peer 'DIR/{kernel} {op} {size}' is run with {kernel} (hip
kernel name), {op} (sgemm or reduce) and {size} (the cube's edge, or the reduction's length)
filled in, and must print a line 'min MS' (its fastest launch). This repository holds no peer
code and no recipe to build one: docs/emulator.md says what was compared and how.

Usage: tools/emulator_bench.py [--rounds N] [--repeats N] [--peer CMD] [LABEL=]HARNESS ...
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROWS = [("reduce_generic", "reduce", 1 << 20), ("sgemm_tiled", "sgemm", 256), ("sgemm_optimized", "sgemm", 256),
        ("sgemm_tiled", "sgemm", 512), ("sgemm_optimized", "sgemm", 512)]


def case_line(op, size):
    if op == "reduce":
        return f"reduce n_{size} n={size} dist=uniform"
    return f"sgemm cube_{size} M={size} N={size} K={size} dist=uniform"


def run_emulator(harness, cases, schedule, repeats):
    """{(kernel, size): (first_launch_ms, kernel_ms)} for one harness run at width 64."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.jsonl")
        kernels = ",".join(sorted({"hip/" + k for k, _, _ in ROWS}))
        cmd = [harness, "run", "--backend", "sim", "--width", "64", "--cases", cases, "--kernel", kernels,
               "--schedule", schedule, "--repeats", str(repeats), "--jobs", "1", "--quiet", "--json", out]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            sys.exit(f"emulator_bench: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}")
        got = {}
        for line in open(out, encoding="utf-8"):
            r = json.loads(line)
            if r.get("record") != "result":
                continue
            size = r["n"] if r["op"] == "reduce" else r["M"]
            if "first_launch_ms" not in r:
                sys.exit(f"emulator_bench: {harness} writes no first_launch_ms (a harness from before issue 31)")
            got[(r["kernel"], size)] = (r["first_launch_ms"], r["kernel_ms"])
        return got


def run_peer(template, kernel, op, size):
    cmd = template.format(kernel=kernel, op=op, size=size)
    proc = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("min "):
            return float(line.split()[1])
    sys.exit(f"emulator_bench: the peer command `{cmd}` printed no 'min MS' line (exit {proc.returncode}):\n"
             f"{proc.stdout[-2000:]}")


def best(old, new):
    return new if old is None else min(old, new)


def measure(args, harnesses, cases):
    figures = {label: {} for label, _ in harnesses}
    peer = {}
    for _ in range(args.rounds):
        for label, harness in harnesses:
            mixed = run_emulator(harness, cases, "mixed:0", args.repeats)
            lock = run_emulator(harness, cases, "lockstep", args.repeats)
            for key, (first, fastest) in mixed.items():
                f = figures[label].setdefault(key, [None, None, None])
                f[0], f[1], f[2] = best(f[0], fastest), best(f[1], lock[key][1]), best(f[2], first)
        if args.peer:
            for kernel, op, size in ROWS:
                peer[(kernel, size)] = best(peer.get((kernel, size)), run_peer(args.peer, kernel, op, size))
    return figures, peer


def print_table(rows, figures, peer, harnesses):
    head = "| kernel | size |" + (" peer ms |" if peer else "")
    for label, _ in harnesses:
        head += f" {label}: fastest; lockstep; checked first (ms) |" + (" ratios to the peer |" if peer else "")
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for kernel, op, size in rows:
        key = (kernel, size)
        shown = f"2^{size.bit_length() - 1}" if op == "reduce" else f"{size}^3"
        line = f"| {kernel} | {shown} |" + (f" {peer[key]:.2f} |" if peer else "")
        for label, _ in harnesses:
            f = figures[label].get(key)
            if not f:
                line += " missing |" + (" |" if peer else "")
                continue
            line += f" {f[0]:.2f}; {f[1]:.2f}; {f[2]:.2f} |"
            if peer:
                line += f" {f[0] / peer[key]:.2f}x; {f[1] / peer[key]:.2f}x; {f[2] / peer[key]:.2f}x |"
        print(line)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds of every measurement; the best is kept")
    p.add_argument("--repeats", type=int, default=3, help="launches per case (the first is the checked one)")
    p.add_argument("--peer", help="command timing one kernel on the peer: {kernel} {op} {size}; prints 'min MS'")
    p.add_argument("harness", nargs="+", help="[LABEL=]path of a harness binary")
    args = p.parse_args()
    harnesses = [tuple(h.split("=", 1)) if "=" in h else (h, h) for h in args.harness]
    with tempfile.TemporaryDirectory() as tmp:
        cases = os.path.join(tmp, "issue31.cases")
        with open(cases, "w", encoding="utf-8") as f:
            f.write("".join(dict.fromkeys(case_line(op, size) + "\n" for _, op, size in ROWS)))
        figures, peer = measure(args, harnesses, cases)
    print(f"width 64, {os.cpu_count()} cores, best of {args.rounds} rounds; {args.repeats} launches per case\n")
    print_table(ROWS, figures, peer, harnesses)


if __name__ == "__main__":
    main()
