# SPDX-License-Identifier: MIT
# tests/integration/selection.sh: selections and options point at the mistake. A filter that
# matches nothing is bad usage (exit 2) naming the filter and the closest name, in the run and
# in `run --list` alike; a '-GLOB' item deselects; a mistyped option gets the closest one.
# Sourced by integration.sh.

echo "integration: selections and options point at the mistake"
expect_exit 2 "--kernel sgemm_naiv" -- "$H" run --backend sim --kernel sgemm_naiv --quiet
if grep -q -- "--kernel sgemm_naiv: matches no kernel here (did you mean cuda/sgemm_naive?)" "$T/out"
then ok "the filter that matched nothing is named, with the closest kernel"
else bad "the filter that matched nothing is named, with the closest kernel" "$T/out"; fi
expect_exit 2 "--case edge_1x2x4" -- "$H" run --backend sim --case edge_1x2x4 --quiet
if grep -q -- "--case edge_1x2x4: matches no case here (did you mean edge_1x2x3?)" "$T/out"
then ok "a case filter that matched nothing is named, with the closest case"
else bad "a case filter that matched nothing is named, with the closest case" "$T/out"; fi
expect_exit 2 "run --list --kernel sgemm_naiv" -- "$H" run --list --backend sim --kernel sgemm_naiv
expect_exit 2 "--kernal" -- "$H" run --kernal x
if grep -q -- "--kernal: unknown option; did you mean --kernel?" "$T/out"; then ok "a mistyped option gets the closest"
else bad "a mistyped option gets the closest" "$T/out"; fi
expect_exit 2 "--re (ambiguous)" -- "$H" run --re x
if grep -q -- "--re: ambiguous: it begins --rerun-failed, --record, --repeats" "$T/out"; then ok "an ambiguous prefix is called ambiguous"
else bad "an ambiguous prefix is called ambiguous" "$T/out"; fi
if [ -n "$(device_count vulkan)" ]; then
    expect_exit 2 "run --list at a width no device runs, as the run" -- "$H" run --list --backend vulkan --width 32
    if grep -q -- "--width 32: no selected device runs that width" "$T/out"; then ok "run --list explains the width as the run does"
    else bad "run --list explains the width as the run does" "$T/out"; fi
fi
if [ -n "$(device_count sim)" ]; then
    "$H" run --list --backend sim --width 32 --case sum_1 --kernel 'cuda/reduce_*,-cuda/reduce_wave64' >"$T/neg" 2>&1
    if [ "$(cut -d: -f4 "$T/neg" | sort -u | tr '\n' ' ')" = "cuda/reduce_generic cuda/reduce_warp32 " ]
    then ok "a '-GLOB' item deselects from the list"; else bad "a '-GLOB' item deselects from the list" "$T/neg"; fi
    "$H" run --list --backend sim --width 32 --case sum_1 --kernel '-cuda/*' >"$T/neg" 2>&1
    if [ -s "$T/neg" ] && ! grep -q ':cuda/' "$T/neg"; then ok "a list of only '-GLOB' items selects the rest"
    else bad "a list of only '-GLOB' items selects the rest" "$T/neg"; fi
fi

echo "integration: JUnit on pipes and stdout, counts as numbers"
if [ -n "$(device_count sim)" ]; then
    "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case 'edge_1x2x3,edge_2x3x5' --quiet \
        --junit >(cat >"$T/pipe.xml") >"$T/out" 2>&1
    sleep 0.2
    if xmllint --noout "$T/pipe.xml" 2>"$T/xml" && grep -q 'tests="2" failures="0"' "$T/pipe.xml"; then
        ok "--junit to a pipe is one whole document with plain counts"
    else bad "--junit to a pipe is one whole document with plain counts" "$T/pipe.xml"; fi
    "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case edge_1x2x3 --junit - >"$T/stdout" 2>"$T/stderr"
    if xmllint --noout "$T/stdout" 2>"$T/xml" && grep -q "1 passed" "$T/stderr"; then
        ok "--junit - writes the document alone to stdout, the run's lines to stderr"
    else bad "--junit - writes the document alone to stdout, the run's lines to stderr" "$T/stdout"; fi
    "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case edge_1x2x3 --json - >"$T/stdout" 2>"$T/stderr"
    if python3 -c "import json, sys; [json.loads(l) for l in open(sys.argv[1])]" "$T/stdout" 2>"$T/py"; then
        ok "--json - writes JSON lines alone to stdout"
    else bad "--json - writes JSON lines alone to stdout" "$T/stdout"; fi
    [ -e ./- ] && bad "--junit - made a file named -" /dev/null
fi

echo "integration: --rerun-failed F alone reruns F's failures from F's own selection"
if [ -n "$(device_count sim)" ]; then
    SH=tests/data/shrink/shrink.manifest
    "$H" run --backend sim --width 32 --manifest "$SH" --only-manifest --case 'edge_1[25]*,exact_9*' \
        --json "$T/planted2.jsonl" --quiet >"$T/out" 2>&1
    expect_exit 1 "--rerun-failed F with no other option, from another folder" -- \
        env -C "$T" "$PWD/$H" run --rerun-failed "$T/planted2.jsonl" --json "$T/rerun2.jsonl"
    json_check "it reran exactly F's failures, with F's manifest" "$T/rerun2.jsonl" \
        "sorted((r['case'], r['verdict']) for r in recs) == [(c, 'FAIL') for c in ('edge_127x128x129', 'edge_128x129x1', 'edge_129x1x2')]"
fi

echo "integration: --csv as deqp-runner's results.csv"
if [ -n "$(device_count sim)" ]; then
    "$H" run --backend sim --width 32 --kernel 'cuda/sgemm_naive,cuda/fault_crash' --case edge_1x2x3 --quiet \
        --csv "$T/results.csv" --json "$T/csv.jsonl" >"$T/out" 2>&1
    if python3 - "$T/results.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
want = {"sim:0:w32:cuda/sgemm_naive:edge_1x2x3": ("Pass", "PASS"), "sim:0:w32:cuda/fault_crash:edge_1x2x3": ("ExpectedFail", "XFAIL")}
sys.exit(0 if {r[0]: (r[1], r[3]) for r in rows} == want and all(float(r[2]) >= 0 and len(r) == 6 for r in rows) else 1)
PY
    then ok "--csv: one row per result, id, deqp-runner status, seconds, verdict, classes, why"
    else bad "--csv: one row per result, id, deqp-runner status, seconds, verdict, classes, why" "$T/results.csv"; fi
fi
