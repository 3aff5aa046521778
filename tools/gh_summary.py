#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gh_summary.py: a harness run as GitHub Actions shows it: a step summary (the verdict table,
then each failure with the command that reruns it) and ::error / ::warning annotations at the
manifest line that declares each failing kernel, so they sit on the pull request's diff.

    tools/gh_summary.py [--summary FILE] [--exit-code N] [--log FILE] [--kernels DIR]...
                        [--relative-to DIR] [--max-failures N] RESULTS.jsonl

RESULTS.jsonl is the run's --json file (docs/json-schema.md). Annotations go to stdout (the
runner reads workflow commands there); the summary is appended to --summary (the action passes
$GITHUB_STEP_SUMMARY), or printed when none is given. --exit-code is the harness's exit status,
--log its output (a bad manifest or case file, exit 2, is annotated at the file:line it names);
--kernels is the folder of the shipped manifests (kernels/), for shipped kernels' lines.
Python 3 standard library only: the action runs it on any runner.
"""
import argparse
import json
import os
import re
import shlex
import sys

VERDICTS = ["PASS", "SUSPECT", "FAIL", "XFAIL", "XPASS", "SKIP", "ERROR"]
FAILING = ("FAIL", "XPASS", "ERROR")
EXITS = {
    0: "every verdict acceptable",
    1: "a FAIL, XPASS or ERROR",
    2: "bad usage, or a bad manifest or case file",
    3: "a backend asked for by name has no usable device",
    4: "no case ran",
}
GUARD_BYTES = 4096  # the harness's default guard band (guard.h GRD_BYTES)


def read_run(path):
    """The header and the result records of a --json file; a missing file is an empty run."""
    header, results = {}, []
    if not os.path.exists(path):
        return header, results
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            kind = rec.get("record", "result")
            if kind == "header":
                header = rec
            elif kind == "result":
                results.append(rec)
    return header, results


def relative(path, base):
    """path from base when it lies under it (an annotation's file is from the repository root)."""
    path, base = os.path.realpath(path), os.path.realpath(base)
    return os.path.relpath(path, base) if path.startswith(base + os.sep) else path


def manifest_sections(path):
    """{(name, lang): line} of the [name] lines of one manifest (kernels/README.md)."""
    found, name, line_no, lang = {}, None, 0, ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return found
    for n, raw in enumerate(lines + ["[]"], 1):
        text = raw.split("#", 1)[0].strip()
        section = re.fullmatch(r"\[(.*)\]", text)
        if section:
            if name:
                found[(name, lang)] = line_no
            name, line_no, lang = section.group(1).strip(), n, ""
        elif name and re.match(r"lang\s*=", text):
            lang = text.split("=", 1)[1].strip()
    return found


class Locator:
    """Where a result's kernel is declared: its manifest's path and the [name] line."""

    def __init__(self, header, kernel_dirs, relative_to):
        base = header.get("cwd") or os.getcwd()
        self.relative_to = relative_to
        self.user = self._index(os.path.join(base, m) for m in header.get("manifests", []))
        shipped = []
        for d in kernel_dirs:
            for sub in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                folder = os.path.join(d, sub)
                if os.path.isdir(folder):
                    shipped += [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".manifest")]
        self.shipped = self._index(shipped)

    @staticmethod
    def _index(paths):
        index = {}
        for p in paths:
            for key, line in manifest_sections(p).items():
                index.setdefault(key, (p, line))
        return index

    def find(self, rec):
        key = (rec["kernel"], rec["lang"])
        first, second = (self.user, self.shipped) if rec.get("user_manifest") else (self.shipped, self.user)
        hit = first.get(key) or second.get(key)
        if not hit:
            return None, None
        return relative(hit[0], self.relative_to), hit[1]


def rerun(rec, header):
    """The command that reruns one result: the harness's own reproducer (report.c)."""
    words = [header.get("exe") or "harness", "run", "--backend", rec["backend"], "--device",
             str(rec.get("device_index", 0)), "--width", str(rec["width"]),
             "--kernel", "%s/%s" % (rec["lang"], rec["kernel"])]
    if not rec.get("group_row") and rec["case"] != "*":
        words += ["--case", rec["case"]]
    words += ["--cases", header["cases"]] if header.get("cases") else ["--tier", header.get("tier") or "quick"]
    manifests = header.get("manifests", []) if rec.get("user_manifest") or header.get("only_manifest") else []
    for m in manifests:
        words += ["--manifest", m]
    if manifests:
        words.append("--only-manifest")
    if header.get("known_bugs"):
        words += ["--known-bugs", header["known_bugs"]]
    schedule = rec.get("schedule") or header.get("schedule")
    if schedule:
        words += ["--schedule", schedule]
    guard = header.get("guard_bytes", GUARD_BYTES)
    if guard and guard != GUARD_BYTES:
        words += ["--guard-kib", str(guard // 1024)]
    return " ".join(w if re.fullmatch(r"[A-Za-z0-9_\-./:=,+@%^]+", w) else shlex.quote(w) for w in words)


def figure(value):
    return value if isinstance(value, str) else "%.3g" % value


def describe(rec):
    """One line of what went wrong, from the record's figures."""
    parts = [rec.get("why") or rec["verdict"].lower()]
    if rec.get("elements") and not rec.get("group_row"):
        parts.append("%d/%d outputs bad" % (rec.get("bad", 0), rec["elements"]))
        ratio = rec.get("max_ratio", 0)
        if ratio and ratio != "0":
            parts.append("max ratio %s (threshold %s)" % (figure(ratio), figure(rec.get("threshold", 0))))
        if "total_rel_err" in rec and rec["op"] == "reduce":
            total = rec["total_rel_err"]
            parts.append("sum off by %s%%" % (total if isinstance(total, str) else "%.3g" % (100 * total)))
        bad = rec.get("first_bad")
        if bad:
            where = "partial %d" % bad["i"] if bad["j"] < 0 else "C[%d][%d]" % (bad["i"], bad["j"])
            parts.append("first bad %s: expected %s got %s" % (where, bad["expected"], bad["got"]))
    return "; ".join(parts)


def result_id(rec):
    return "%s:%s:w%s:%s/%s:%s" % (rec["backend"], rec.get("device_index", 0), rec["width"], rec["lang"],
                                   rec["kernel"], rec["case"])


def group_key(r):
    return ("%s/%s" % (r["lang"], r["kernel"]), r["backend"], r.get("device", ""), r["width"])


def groups(results):
    """Verdict counts and the worst margin per kernel, backend, device and width. Workers finish
    groups in any order: sorted, the table is the same for the same run."""
    table = {}
    for r in sorted(results, key=group_key):
        g = table.setdefault(group_key(r), {"counts": dict.fromkeys(VERDICTS, 0), "worst": 0.0})
        g["counts"][r["verdict"]] += 1
        ratio, threshold = r.get("max_ratio", 0), r.get("threshold", 0)
        if isinstance(ratio, str) or isinstance(threshold, str):
            margin = float("inf") if "inf" in str(ratio) else 0.0
        else:
            margin = ratio / threshold if threshold > 0 else 0.0
        g["worst"] = max(g["worst"], margin)
    return table


def md_cell(text):
    return str(text).replace("|", "\\|")


def summary(header, results, exit_code, locate, max_failures):
    """The step summary, as Markdown lines."""
    counts = dict.fromkeys(VERDICTS, 0)
    for r in results:
        counts[r["verdict"]] += 1
    failing = sorted((r for r in results if r["verdict"] in FAILING), key=group_key)
    state = "passed" if exit_code == 0 else "failed"
    head = "### gpu-harness: %s" % state
    if exit_code is not None:
        head += " (exit %d: %s)" % (exit_code, EXITS.get(exit_code, "unknown"))
    out = [head, ""]
    if header.get("command"):
        out += ["`%s`" % header["command"], ""]
    out += [", ".join("%s %d" % (v, counts[v]) for v in VERDICTS), ""]
    if results:
        out += ["| kernel | backend | device | width | verdicts | worst ratio to threshold |",
                "| --- | --- | --- | --- | --- | --- |"]
        for (kernel, backend, device, width), g in groups(results).items():
            verdicts = " ".join("%d %s" % (n, v) for v, n in g["counts"].items() if n)
            out.append("| %s | %s | %s | %s | %s | %s |" % (md_cell(kernel), backend, md_cell(device), width,
                                                           verdicts, "%.3g" % g["worst"]))
        out.append("")
    if failing:
        out += ["#### Failures (%d)" % len(failing), ""]
        for r in failing[:max_failures]:
            path, line = locate.find(r)
            where = " (%s:%d)" % (path, line) if path else ""
            out += ["**%s** `%s`%s: %s" % (r["verdict"], result_id(r), where, md_cell(describe(r))), "",
                    "```sh", rerun(r, header), "```", ""]
        if len(failing) > max_failures:
            out += ["... and %d more: the JSON lines have every one." % (len(failing) - max_failures), ""]
    return out


def escape(text, prop=False):
    """A workflow command's data (or, prop, a property value), escaped as the runner reads it."""
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def command(level, message, title, path=None, line=None):
    props = ["file=%s" % escape(path, True), "line=%d" % line] if path else []
    props.append("title=%s" % escape(title, True))
    return "::%s %s::%s" % (level, ",".join(props), escape(message))


def annotations(header, results, locate):
    """One annotation per kernel with failing (error) or suspect (warning) results."""
    by_kernel = {}
    for r in sorted(results, key=group_key):
        level = "error" if r["verdict"] in FAILING else "warning" if r["verdict"] == "SUSPECT" else None
        if level:
            key = (level, r["lang"], r["kernel"])
            by_kernel.setdefault(key, []).append(r)
    out = []
    for (level, lang, kernel), recs in sorted(by_kernel.items(), key=lambda kv: (kv[0][0] != "error", kv[0][1:])):
        path, line = locate.find(recs[0])
        verdicts = sorted({r["verdict"] for r in recs}, key=VERDICTS.index)
        where = sorted({"%s w%d" % (r["backend"], r["width"]) for r in recs})
        message = "%d %s at %s; first: %s: %s\nrerun: %s" % (
            len(recs), "/".join(verdicts), ", ".join(where), result_id(recs[0]), describe(recs[0]),
            rerun(recs[0], header))
        out.append(command(level, message, "gpu-harness: %s/%s" % (lang, kernel), path, line))
    return out


def read_log(log, relative_to):
    """The harness's own error lines: annotations for those naming a file:line (a bad manifest
    or case file, exit 2: `harness: FILE:LINE: what is wrong`), and the last line of all."""
    notes, last = [], None
    with open(log, encoding="utf-8", errors="replace") as f:
        for text in f:
            m = re.match(r"harness: (.+)", text.rstrip("\n"))
            if not m:
                continue
            last = m.group(1)
            at = re.match(r"(.+?):(\d+): (.*)", last)
            if at:
                path = relative(at.group(1), relative_to)
                notes.append(command("error", at.group(3), "gpu-harness: bad input", path, int(at.group(2))))
    return notes, last


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--summary", help="append the Markdown summary here (default: print it)")
    ap.add_argument("--exit-code", type=int, help="the harness's exit status")
    ap.add_argument("--log", help="the harness's output, for bad-input messages")
    ap.add_argument("--kernels", action="append", default=[], help="a folder of shipped manifests")
    ap.add_argument("--relative-to", default=os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    ap.add_argument("--max-failures", type=int, default=30)
    args = ap.parse_args(argv)
    header, results = read_run(args.results)
    locate = Locator(header, args.kernels, args.relative_to)
    notes, last = read_log(args.log, args.relative_to) if args.log else ([], None)
    lines = summary(header, results, args.exit_code, locate, args.max_failures)
    if args.exit_code not in (None, 0, 1):
        # Not a verdict: the run stopped (or never started), and the harness said why.
        why = last or "harness exit %d: %s" % (args.exit_code, EXITS.get(args.exit_code, "unknown"))
        lines[1:1] = ["", "> %s" % md_cell(why)]
        if not notes:
            notes.append(command("error", why, "gpu-harness: exit %d" % args.exit_code))
    notes = annotations(header, results, locate) + notes
    for n in notes:
        print(n)
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
