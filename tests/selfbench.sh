#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# selfbench.sh: the harness's own throughput, measured: each backend with a device runs a fixed
# tier alone, serial (--jobs 1) and parallel (--jobs $JOBS, default one per core); it prints
# results per second and the run's own timing lines, and judges nothing.
#   tests/selfbench.sh [TIER]          TIER: quick (default), standard or nightly
#   BACKENDS="cuda vulkan" JOBS=16 BUILD=build tests/selfbench.sh standard
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
H=$BUILD/harness
TIER=${1:-quick}
JOBS=${JOBS:-$(nproc)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

backends=${BACKENDS:-$("$H" list 2>/dev/null | awk '/device\(s\)/ { for (i = 1; i <= NF; i++) if ($i ~ /^device\(s\)/ && $(i-1) > 0) print $1 }')}
if [ -z "$backends" ]; then
    echo "selfbench: no backend with a usable device" >&2
    exit 1
fi
echo "selfbench: tier $TIER, $(nproc) cores; backends: $(echo $backends)"
for b in $backends; do
    for j in 1 "$JOBS"; do
        t0=$(date +%s.%N)
        HB_VK_VALIDATION=${HB_VK_VALIDATION:-0} "$H" run --backend "$b" --tier "$TIER" --jobs "$j" --quiet \
            --json "$T/r.jsonl" >"$T/out" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        n=$(wc -l <"$T/r.jsonl" 2>/dev/null || echo 0)
        awk -v b="$b" -v j="$j" -v n="$n" -v t0="$t0" -v t1="$t1" -v rc="$rc" 'BEGIN {
            s = t1 - t0
            printf "%-8s --jobs %-3d %6d results in %7.1f s: %8.1f results/s (exit %d)\n", b, j, n, s, (s > 0 ? n / s : 0), rc
        }'
        grep -E '^(Where the time went|Harness time by phase)' "$T/out" | sed 's/^/           /'
        [ "$j" = 1 ] && [ "$JOBS" = 1 ] && break
    done
done
