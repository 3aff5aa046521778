# SPDX-License-Identifier: MIT
# tests/integration/canaries.sh: the warp-size bug patterns' canaries on the emulator, the
# gate GPU-less CI has: each is right at the widths it was written for and caught (XFAIL,
# never XPASS) at the others, and its divergence does not depend on the schedule.
# Sourced by integration.sh.

if [ -z "$(device_count sim)" ]; then
    skip "warp-size canaries" "sim backend not built"
else
    echo "integration: every warp-size pattern's canary is caught at 32 and 64"
    expect_exit 0 "run --kernel '*canary*' at widths 32 and 64" -- "$H" run --backend sim --width 32,64 \
        --kernel '*canary*' --case 'sum_4097,big_1000003,rows_9x100,scan_4097' --json "$T/canaries.jsonl" --quiet
    json_check "no canary passes at a width it was not written for (no XPASS)" "$T/canaries.jsonl" \
        "recs and not [r for r in recs if r['verdict'] == 'XPASS']"
    for p in 1 2 3 4 5 6 7 8 10; do
        json_check "pattern $p: its canary is caught at 32 or 64 and right at the other" "$T/canaries.jsonl" \
            "any(r['note'].startswith('pattern $p:') for r in recs) and \
             all({x['verdict'] for x in recs if x['kernel'] == r['kernel'] and x['lang'] == r['lang']} == {'PASS', 'XFAIL'} \
                 for r in recs if r['note'].startswith('pattern $p:'))"
    done
    if "$H" list 2>/dev/null | grep -c 'canary_.*pattern [0-9]*:' | grep -qx 16; then
        ok "harness list shows each canary with the pattern it models"
    else
        bad "harness list shows each canary with the pattern it models" /dev/null
    fi

    echo "integration: the new canaries are caught under every random schedule"
    caught=1
    for s in 1 2 3 4 5; do
        "$H" run --backend sim --width 32,64 --schedule "random:$s" --case sum_4097,rows_9x100,scan_4097 --json "$T/rand$s.jsonl" \
            --quiet --kernel '*/canary_scan32,*/canary_rank32,hip/canary_wave_per_block64,*/canary_leader32,*/canary_softmax32,cuda/canary_warp_partials32' \
            >"$T/out" 2>&1 ||
            caught=0
        python3 - "$T/rand$s.jsonl" <<'PY' || caught=0
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("record", "result") == "result"]
bad_at = {"canary_wave_per_block64": 32}
xfail = {(r["lang"], r["kernel"]) for r in recs if r["verdict"] == "XFAIL" and r["width"] == bad_at.get(r["kernel"], 64)}
sys.exit(0 if len(xfail) == 10 and len(recs) == 20 else 1)
PY
    done
    name="scan32, rank32, leader32, softmax32 (HIP and CUDA), wave_per_block64, warp_partials32 caught under random:1..5"
    if [ "$caught" = 1 ]; then ok "$name"; else bad "$name" "$T/out"; fi
fi
