#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gh_action.sh: the step of the GitHub Action (action.yml at the repository root). Finds the
# harness (the `harness` input, else one on PATH, else builds and installs this checkout into
# $RUNNER_TEMP), runs the selection the inputs name with JUnit, JSON lines and HTML into the
# results folder, writes the step summary and annotations (tools/gh_summary.py), sets the
# outputs and exits with the harness's own status (0 ok, 1 FAIL/XPASS/ERROR, 2 bad input,
# 3 a backend named has no usable device, 4 no case ran). Inputs arrive as INPUT_* variables,
# never pasted into the script, so no input is read as shell code.
set -uo pipefail
action=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}

if [ "${INPUT_INSTALL_DEPS:-false}" = true ]; then
    "$action/ci/install-deps.sh" || exit 2
fi
harness=${INPUT_HARNESS:-}
if [ -z "$harness" ] && command -v harness >/dev/null; then
    harness=$(command -v harness)
fi
if [ -z "$harness" ]; then
    prefix=${RUNNER_TEMP:-/tmp}/gpu-harness
    echo "::group::build and install the harness into $prefix"
    make -C "$action" -j"$(nproc)" install PREFIX="$prefix" || exit 2
    echo "::endgroup::"
    harness=$prefix/bin/harness
fi
# The shipped manifests, for the annotations of shipped kernels: `harness --version` says
# where its data is.
data=$("$harness" --version | sed -n 's/^data: *\(.*\) (kernel sources.*/\1/p')

out=${INPUT_RESULTS_DIR:-gpu-harness-results}
mkdir -p "$out"
rm -f "$out/report.xml" "$out/results.jsonl" "$out/report.html" "$out/harness.log"
args=(run --junit "$out/report.xml" --json "$out/results.jsonl" --html "$out/report.html")
[ -n "${INPUT_BACKEND:-}" ] && args+=(--backend "$INPUT_BACKEND")
[ -n "${INPUT_TIER:-}" ] && args+=(--tier "$INPUT_TIER")
[ -n "${INPUT_CASES:-}" ] && args+=(--cases "$INPUT_CASES")
[ -n "${INPUT_KERNEL:-}" ] && args+=(--kernel "$INPUT_KERNEL")
[ -n "${INPUT_CASE:-}" ] && args+=(--case "$INPUT_CASE")
[ -n "${INPUT_WIDTH:-}" ] && args+=(--width "$INPUT_WIDTH")
# Manifests and extra arguments are words split at white space, with no globbing.
set -f
# shellcheck disable=SC2206 # the split is the point
manifests=(${INPUT_MANIFEST:-}) extra=(${INPUT_ARGS:-})
set +f
for m in "${manifests[@]}"; do
    args+=(--manifest "$m")
done
[ ${#manifests[@]} -gt 0 ] && args+=(--only-manifest)
args+=("${extra[@]}")

echo "$harness ${args[*]}"
"$harness" "${args[@]}" 2>&1 | tee "$out/harness.log"
rc=${PIPESTATUS[0]}

python3 "$action/tools/gh_summary.py" "$out/results.jsonl" --exit-code "$rc" --log "$out/harness.log" \
    ${data:+--kernels "$data/kernels"} ${GITHUB_STEP_SUMMARY:+--summary "$GITHUB_STEP_SUMMARY"}
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'exit-code=%s\nresults=%s\njunit=%s\nhtml=%s\n' "$rc" "$out/results.jsonl" "$out/report.xml" \
        "$out/report.html" >>"$GITHUB_OUTPUT"
fi
exit "$rc"
