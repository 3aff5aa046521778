# SPDX-License-Identifier: MIT
# tests/integration/known.sh: known-bug lists from the command line: `harness known-bugs
# --from` drafts one from a run, --known-bugs adds it to the shipped list (and must exist),
# its entries turn the listed failures into XFAIL, and a width column keeps an entry to its
# width. Sourced by integration.sh.

if [ -z "$(device_count sim)" ]; then
    skip "known-bug lists" "sim backend not built"
else
    echo "integration: known-bug lists drafted from a run, added to the shipped one"
    SH=tests/data/shrink/shrink.manifest
    sel=(--backend sim --width 32 --manifest "$SH" --only-manifest --case 'edge_1[25]*,exact_9*' --quiet)
    "$H" run "${sel[@]}" --json "$T/kb-run.jsonl" >"$T/out" 2>&1
    expect_exit 0 "known-bugs --from a run" -- "$H" known-bugs --from "$T/kb-run.jsonl" -o "$T/kb.list"
    if [ "$(grep -c '^sim SIMT\*emulator\*(2\*cores) cuda/tile_edge edge_.* width=32 TRIAGE: FAIL wrong' "$T/kb.list")" = 3 ]
    then ok "one entry per failure, with its width"; else bad "one entry per failure, with its width" "$T/kb.list"; fi
    # issue 47: the draft as drafted turns every failure into XFAIL: nobody triaged it.
    expect_exit 2 "issue 47: --known-bugs with the unedited draft is refused" -- "$H" run "${sel[@]}" \
        --known-bugs "$T/kb.list"
    if grep -q "kb.list:5: its reason still says TRIAGE" "$T/out"; then ok "issue 47: ... naming its first TRIAGE line"
    else bad "issue 47: ... naming its first TRIAGE line" "$T/out"; fi
    sed -i 's/TRIAGE: FAIL wrong/tile edge bug, triaged/' "$T/kb.list"
    expect_exit 0 "--known-bugs with the triaged draft: the listed failures are XFAIL" -- "$H" run "${sel[@]}" \
        --known-bugs "$T/kb.list" --json "$T/kb-xfail.jsonl"
    json_check "each listed failure is a known bug, the rest passes" "$T/kb-xfail.jsonl" \
        "sorted(r['verdict'] for r in recs) == ['PASS', 'PASS', 'XFAIL', 'XFAIL', 'XFAIL'] and all('known bug: tile edge bug, triaged' in r['why'] for r in recs if r['verdict'] == 'XFAIL')"
    printf '[flakes]\nsim * * * everything is flaky\n' >"$T/flakes-all.list"
    expect_exit 2 "issue 47: a [flakes] entry for every kernel is refused" -- "$H" run "${sel[@]}" \
        --known-bugs "$T/flakes-all.list"
    if grep -q "flakes-all.list:2: a \[flakes\] entry for every kernel" "$T/out"; then ok "issue 47: ... at its line"
    else bad "issue 47: ... at its line" "$T/out"; fi
    sed 's/width=32/width=64/' "$T/kb.list" >"$T/kb64.list"
    expect_exit 1 "an entry for width 64 leaves width 32 failing" -- "$H" run "${sel[@]}" --known-bugs "$T/kb64.list"
    expect_exit 2 "a --known-bugs file that does not exist is refused" -- "$H" run "${sel[@]}" --known-bugs "$T/none.list"
    if grep -q "$T/none.list" "$T/out"; then ok "... naming it"; else bad "... naming it" "$T/out"; fi
    passing=(--backend sim --width 32 --manifest "$SH" --only-manifest --case 'exact_9*' --quiet)
    printf '[flakes]\nsim * cuda/tile_edge exact_9* flaky here\n' >"$T/flakes.list"
    expect_exit 0 "a [flakes] entry that passes is no XPASS" -- "$H" run "${passing[@]}" --known-bugs "$T/flakes.list"
    printf 'sim * cuda/tile_edge exact_9* fixed long ago\n' >"$T/stale.list"
    expect_exit 1 "a listed bug that no longer shows is an XPASS" -- "$H" run "${passing[@]}" --known-bugs "$T/stale.list"
fi
