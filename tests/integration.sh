#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration.sh: runs the real harness binary on the real emulator and lavapipe and reads
# its exit codes, messages, JSON lines and JUnit. Each check can fail; a backend that is not
# built or has no device here is skipped by name, never passed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
H=$BUILD/harness
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0 failed=0 skipped=0

ok()   { passed=$((passed + 1)); echo "  ok      $1"; }
bad()  { failed=$((failed + 1)); echo "  FAILED  $1"; [ -n "${2:-}" ] && sed 's/^/          /' "$2" | tail -20; }
skip() { skipped=$((skipped + 1)); echo "  skip    $1: $2"; }

# expect_exit CODE NAME -- command...: the command's exit status must be CODE.
expect_exit() {
    local want=$1 name=$2; shift 3
    "$@" >"$T/out" 2>&1
    local got=$?
    if [ "$got" = "$want" ]; then ok "$name (exit $got)"; else bad "$name: exit $got, want $want" "$T/out"; fi
}

# jq-free JSON check: python3 evaluates an expression over the records of a JSON lines file.
json_check() {
    local name=$1 file=$2 expr=$3
    if python3 - "$file" "$expr" >"$T/py" 2>&1 <<'PY'
import json, re, sys
# Result records only: schema 2 files open with a run header and close with an end record.
recs = [r for r in (json.loads(l) for l in open(sys.argv[1], encoding="utf-8")) if r.get("record", "result") == "result"]
def find(**kw):
    return [r for r in recs if all(r.get(k) == v for k, v in kw.items())]
ok = eval(sys.argv[2])
if not ok:
    for r in recs[:40]:
        print(r["backend"], r["lang"] + "/" + r["kernel"], "w%d" % r["width"], r["case"], r["verdict"], r["classes"], r["why"])
sys.exit(0 if ok else 1)
PY
    then ok "$name"; else bad "$name" "$T/py"; fi
}

device_count() { "$H" list 2>/dev/null | awk -v b="$1" '$1 == b && /device\(s\)/ { for (i = 1; i <= NF; i++) if ($i ~ /^device\(s\)/) print $(i-1) }'; }

# The checks, by subject; each part skips by name what this machine cannot run. PARTS="trust cli"
# runs only those parts (a developer's loop; make check runs them all).
for part in ${PARTS:-layers basics canaries families selection known kernels_and_reports fidelity custom_op reduce_forms real_files cli ci_fit supervision trust rtc_cache forge}; do
    # shellcheck source=/dev/null
    . "tests/integration/$part.sh"
done

echo
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
