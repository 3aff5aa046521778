#!/bin/sh
# SPDX-License-Identifier: MIT
# nv-smoke.sh: proves the HIP backend end to end on an NVIDIA GPU through HIP's NVIDIA platform
# (run it on the H200, from the repository root, with build/ made or carried): `harness list`,
# the standard tier on --backend hip, a user's .hip kernel compiled at run time and a crash
# canary contained. It proves nothing about AMD hardware. Exits 0 when every check holds.
# Usage: harness/backends/hip/nv-smoke.sh [OUT_DIR]   (BUILD=build; python3 reads the JSON)
set -u
B=${BUILD:-build}
H=$B/harness
OUT=${1:-$B/nv-smoke}
mkdir -p "$OUT"
failed=0
ok()  { echo "  ok      $1"; }
bad() { echo "  FAILED  $1"; failed=$((failed + 1)); }

# json NAME FILE EXPR: EXPR over the records (find(**kw) filters them) must be true.
json() {
    if python3 - "$2" "$3" >"$OUT/py.txt" 2>&1 <<'PY'
import json, sys
recs = [r for r in (json.loads(l) for l in open(sys.argv[1])) if r.get("record", "result") == "result"]
def find(**kw):
    return [r for r in recs if all(r.get(k) == v for k, v in kw.items())]
def verdicts(k):
    return sorted(set(r["verdict"] for r in find(kernel=k)))
ok = eval(sys.argv[2])
if not ok:
    for r in recs:
        if r["verdict"] not in ("PASS",):
            print(r["lang"] + "/" + r["kernel"], "w%d" % r["width"], r["case"], r["verdict"], r["classes"], r["why"][:160])
sys.exit(0 if ok else 1)
PY
    then ok "$1"; else bad "$1"; sed 's/^/          /' "$OUT/py.txt" | head -20; fi
}

echo "nv-smoke: the backend and the device"
"$H" list >"$OUT/list.txt" 2>&1
if awk '/^  hip \(nvidia platform\)/ { s = 1; next } /^  [a-z]/ { s = 0 }
        s && /NVIDIA/ && /nvidia platform/ && /widths 32/ { f = 1 } END { exit !f }' "$OUT/list.txt"; then
    ok "list: hip (nvidia platform) runs an NVIDIA GPU at width 32"
else
    bad "list: hip (nvidia platform) runs an NVIDIA GPU at width 32"; sed -n '1,8p' "$OUT/list.txt"
fi
if cc -std=c11 -D_GNU_SOURCE -Iharness/abi tests/backend_probe.c -o "$OUT/probe" -ldl 2>"$OUT/probe.txt" &&
   "$OUT/probe" "$B/backends/hb_hip.so" >"$OUT/probe.txt" 2>&1 &&
   grep -qx 'platform=nvidia' "$OUT/probe.txt" && grep -q '^device0=.* | width 32$' "$OUT/probe.txt"; then
    ok "hb_hip.so: platform nvidia, $(sed -n 's/^device0=//p' "$OUT/probe.txt")"
else
    bad "hb_hip.so probe"; cat "$OUT/probe.txt"
fi

echo "nv-smoke: the standard tier on --backend hip (a few minutes)"
"$H" run --backend hip --tier standard --timeout 120 --json "$OUT/standard.jsonl" \
    --junit "$OUT/standard.xml" --html "$OUT/standard.html" >"$OUT/standard.txt" 2>&1
rc=$?
if [ $rc = 0 ]; then ok "standard tier exits 0"; else bad "standard tier exits $rc"; tail -15 "$OUT/standard.txt"; fi
S=$OUT/standard.jsonl
json "every result is hip on the nvidia platform at width 32" "$S" \
    'recs and all(r["backend"] == "hip" and r["driver"].startswith("nvidia platform") and r["width"] == 32 for r in recs)'
for k in reduce_warp32 reduce_generic; do
    json "$k PASSes at 32" "$S" "verdicts('$k') == ['PASS']"
done
json "reduce_wave64 is XFAIL at 32, with its size" "$S" \
    "set(verdicts('reduce_wave64')) <= {'PASS', 'XFAIL'} and any(r['verdict'] == 'XFAIL' and r['bad'] > 0 and r['total_rel_err'] > 0 for r in find(kernel='reduce_wave64'))"
for k in sgemm_naive sgemm_tiled sgemm_coarsened sgemm_optimized sgemm_strided; do
    json "$k PASSes every case" "$S" "verdicts('$k') == ['PASS']"
done
for k in canary_ballot32 canary_butterfly16 canary_lane31; do
    json "$k (a bug only at 64) PASSes at 32" "$S" "verdicts('$k') == ['PASS']"
done
json "canary_wave64_on32 (a bug below 64) is caught at 32" "$S" "'XFAIL' in verdicts('canary_wave64_on32') and 'XPASS' not in verdicts('canary_wave64_on32')"

echo "nv-smoke: a user's .hip kernel compiled at run time (nvcc), and a crash canary"
U=tests/data/user_kernel_hip
rm -rf "$OUT/cache"
XDG_CACHE_HOME=$OUT/cache "$H" run --backend hip --only-manifest --manifest "$U/user.manifest" \
    --timeout 120 --json "$OUT/user.jsonl" >"$OUT/user.txt" 2>&1
rc=$?
if [ $rc = 0 ]; then ok "user manifest run exits 0"; else bad "user manifest run exits $rc"; tail -15 "$OUT/user.txt"; fi
if ls "$OUT"/cache/gpu-harness/hip-nv/*.fatbin >/dev/null 2>&1; then
    ok "the run-time compile left its fatbin in \$XDG_CACHE_HOME/gpu-harness/hip-nv"
else
    bad "no run-time fatbin in $OUT/cache"; ls -R "$OUT/cache" 2>&1 | head
fi
json "my_reduce_hip (compiled at run time) PASSes" "$OUT/user.jsonl" "verdicts('my_reduce_hip') == ['PASS']"
json "crash_null is contained: XFAIL as crash or api-error" "$OUT/user.jsonl" \
    "find(kernel='crash_null') and all(r['verdict'] == 'XFAIL' and ('crash' in r['classes'] or 'api' in r['classes']) for r in find(kernel='crash_null'))"

echo
grep -E '^(PASS|[0-9]+ passed)' "$OUT/standard.txt" | sed 's/^/standard: /'
echo "nv-smoke: $failed failed (reports in $OUT)"
[ "$failed" = 0 ]
