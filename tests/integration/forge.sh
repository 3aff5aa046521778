# SPDX-License-Identifier: MIT
# tests/integration/forge.sh: kernels that forge their verdicts instead of computing (issue 27,
# tests/data/forge): records written into the result pipe (a SKIP claimed at load included), a
# reference copied from the memory the worker shares with the harness. The parent judges each case from the outputs it reads,
# with references no worker holds, so a forgery is an ERROR or a FAIL and the run exits 1.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
if [ -z "$(device_count sim)" ]; then
    skip "trust checks" "sim backend not built"
else
    echo "integration: kernels that forge their verdicts (issue 27)"
    FM=tests/data/forge/forge.manifest
    export XDG_CACHE_HOME="$T/cache"
    # The forgery speaks this harness's protocol: its record size and type codes, from protocol.h.
    if cc -std=c11 -D_GNU_SOURCE -Iharness/abi -Iharness/lib -Iharness/core -Ireference -Iharness/report \
        -Iharness/run tests/data/forge/record_layout.c -o "$T/record_layout" >"$T/out" 2>&1; then
        HB_FORGE_RECORD="$("$T/record_layout")" timeout 120 "$H" run --backend sim --width 32 --only-manifest --manifest "$FM" \
            --kernel forge_records --json "$T/forge.jsonl" >"$T/out" 2>&1
        rc=$?
        if [ $rc = 1 ]; then ok "forged records in the result pipe: the run fails (exit 1)"; else bad "forged records: exit $rc, want 1" "$T/out"; fi
        json_check "... each forged case is an ERROR naming the record, none passes" "$T/forge.jsonl" \
            "len(recs) == 2 and all(r['verdict'] == 'ERROR' and 'malformed' in r['why'] for r in recs)"
        HB_FORGE_MODE=done HB_FORGE_RECORD="$("$T/record_layout")" timeout 120 "$H" run --backend sim --width 32 \
            --only-manifest --manifest "$FM" --kernel forge_records --json "$T/done.jsonl" >"$T/out" 2>&1
        rc=$?
        if [ $rc = 1 ]; then ok "a DONE forged mid-case: the run fails (exit 1)"; else bad "a DONE forged mid-case: exit $rc, want 1" "$T/out"; fi
        json_check "... every case still has its row, an ERROR" "$T/done.jsonl" \
            "[r['verdict'] for r in recs] == ['ERROR', 'ERROR']"
        HB_FORGE_RECORD="$("$T/record_layout")" timeout 120 "$H" run --backend sim --width 32 --only-manifest \
            --manifest "$FM" --kernel forge_skip --json "$T/skip.jsonl" >"$T/out" 2>&1
        rc=$?
        if [ $rc = 1 ]; then ok "a SKIP claimed by a kernel's static constructor: the run fails (exit 1)"
        else bad "a SKIP claimed by a kernel's static constructor: exit $rc, want 1" "$T/out"; fi
        json_check "... its group is an ERROR saying the SKIP came after the kernel's code could run" "$T/skip.jsonl" \
            "[r['verdict'] for r in recs] == ['ERROR'] and 'not believed' in recs[0]['why']"
    else
        bad "tests/data/forge/record_layout.c builds against protocol.h" "$T/out"
    fi
    timeout 120 "$H" run --backend sim --width 32 --only-manifest --manifest "$FM" --kernel forge_reference \
        --json "$T/steal.jsonl" >"$T/out" 2>&1
    rc=$?
    if [ $rc = 1 ]; then ok "a kernel that copies the reference from shared memory: the run fails (exit 1)"; else bad "a reference thief: exit $rc, want 1" "$T/out"; fi
    json_check "... no case passes: no worker holds the references or can read the parent's" "$T/steal.jsonl" \
        "len(recs) == 12 and not any(r['verdict'] == 'PASS' for r in recs)"
    # Address space of the host's memory, no more: the arena's reservation (twice that) is
    # refused, and the run's data is made on the heap the workers inherit.
    (ulimit -v "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
        timeout 300 "$H" run --backend sim --width 32 --only-manifest --manifest "$FM" --kernel forge_reference \
            --json "$T/heap.jsonl" >"$T/out" 2>&1)
    rc=$?
    if [ $rc = 1 ]; then ok "... with no arena (its address space refused): the run still fails (exit 1)"
    else bad "a reference thief with no arena: exit $rc, want 1" "$T/out"; fi
    json_check "... no case passes: the references are in mappings no worker inherits" "$T/heap.jsonl" \
        "len(recs) == 12 and not any(r['verdict'] == 'PASS' for r in recs)"
    timeout 300 "$H" run --backend sim --width 32 --only-manifest --manifest "$FM" --kernel forge_reference \
        --case sum_4097 --shrink >"$T/out" 2>&1
    if grep -q "^shrink: .*forge_reference:sum_4097 FAIL wrong: still fails at n=1" "$T/out"; then
        ok "--shrink's trials (made after the arena is sealed): the thief fails every one, down to n=1"
    else bad "--shrink's trials: the thief fails every one, down to n=1" "$T/out"; fi
    unset XDG_CACHE_HOME
fi
