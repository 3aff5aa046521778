# SPDX-License-Identifier: MIT
# tests/integration/trust.sh: inputs and results the harness must not trust blindly (issue 27):
# the gate across device shards, runs that cannot prove they were whole, inputs that block or
# explode, outputs that collide, and the emulator's cache of built kernels.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
TD=tests/data/trust
# has MESSAGE: the last command's output holds MESSAGE (a fixed string).
has() { if grep -qF -- "$2" "$T/out"; then ok "$1"; else bad "$1: no '$2'" "$T/out"; fi; }

echo "integration: trusted inputs (issue 27)"
mkfifo "$T/fifo"
printf 'include %s\n' "$T/fifo" >"$T/fifo.cases"
for opt in --cases --manifest --compare --rerun-failed; do
    expect_exit 2 "a FIFO as $opt is refused at once" -- timeout 5 "$H" run --backend sim "$opt" "$T/fifo"
    has "... as not a regular file" "$T/fifo: not a regular file"
done
expect_exit 2 "a FIFO as a case file's include is refused at once" -- timeout 5 "$H" run --backend sim --cases "$T/fifo.cases"
has "... naming the include line" "fifo.cases:1: include $T/fifo: not a regular file"
expect_exit 2 "merge of a FIFO is refused at once" -- timeout 5 "$H" merge "$T/fifo"

# Six lists of 32 values: 32^6 = 1.07e9 cases from one 800-byte line.
l32=$(seq -s, 1 32)
printf '# one line, a billion cases\nsgemm_strided huge_{M}_{N}_{K}_{lda}_{ldb}_{ldc} M=%s N=%s K=%s lda=%s ldb=%s ldc=%s\n' \
    "$l32" "$l32" "$l32" "$(seq -s, 40 71)" "$(seq -s, 40 71)" "$(seq -s, 40 71)" >"$T/huge.cases"
expect_exit 2 "a case line expanding to 1.07e9 cases is refused" -- timeout 20 bash -c \
    "ulimit -v 4000000; $H run --backend sim --cases $T/huge.cases --list"
has "... at its file:line, with the count and the cap" "huge.cases:2: the line's lists expand to 1073741824 cases"

printf '[k]\nop = sgemm\nlang = cuda\nsource = k.cu\n\0entry = k\n' >"$T/nul.manifest"
expect_exit 2 "a NUL byte in a manifest is an error" -- "$H" run --backend sim --only-manifest --manifest "$T/nul.manifest"
has "... named as a NUL byte at file:line, not a long line" "nul.manifest:5: holds a NUL byte"

expect_exit 2 "--schedule mixed:-1 is bad usage" -- "$H" run --backend sim --schedule mixed:-1 --list
expect_exit 2 "--schedule random:99999999999999999999999 is bad usage" -- "$H" run --backend sim \
    --schedule random:99999999999999999999999 --list
expect_exit 2 "--json and --junit on one file are refused" -- "$H" run --backend sim --json "$T/same" --junit "$T/same"
has "... naming both" "--json and --junit name one file"
expect_exit 2 "... also spelled differently" -- "$H" run --backend sim --html "$T/same" --record "$T/./same"
expect_exit 2 "... and in harness merge" -- "$H" merge --json "$T/same" --junit "$T/same" "$T/fifo"
expect_exit 2 "--record with --shard is refused (a slice is not the run)" -- "$H" run --backend sim --shard 0/2 \
    --record "$T/slice.jsonl"

mkdir -p "$T/noroot"
ln -s "$PWD/cases" "$T/noroot/cases" && ln -s "$PWD/kernels" "$T/noroot/kernels"
expect_exit 2 "a wrong HB_ROOT is bad usage" -- env HB_ROOT="$T/noroot" "$H" run --backend sim
has "... naming the folder that holds no backend" "unknown backend 'sim': $T/noroot/harness/backends holds no backend"

"$H" --version >"$T/version" 2>&1
if [ -z "$(device_count sim)" ]; then
    skip "the gate across device shards, --rerun-failed, the emulator's cache" "sim backend not built"
else
    G="--backend sim --devices all --only-manifest --width 32 --case edge_1x2x3,edge_15x16x17 --quiet"
    expect_exit 0 "--devices all --record on two emulated devices" -- env HB_SIM_DEVICES=2 "$H" run $G \
        --manifest "$TD/good/gate.manifest" --record "$T/gate.jsonl"
    json_check "... the record holds every merged result, both devices'" "$T/gate.jsonl" \
        "sorted((r['device_index'], r['case'], r['verdict']) for r in recs) == [(0, 'edge_1x2x3', 'PASS'), (1, 'edge_15x16x17', 'PASS')] and json.loads(open(sys.argv[1]).readlines()[-1])['results'] == 2"
    expect_exit 0 "--devices all --compare with the same kernel passes" -- env HB_SIM_DEVICES=2 "$H" run $G \
        --manifest "$TD/good/gate.manifest" --compare "$T/gate.jsonl"
    has "... no result called missing" "0 missing"
    expect_exit 1 "--devices all --compare with a broken twin fails" -- env HB_SIM_DEVICES=2 "$H" run $G \
        --manifest "$TD/bad/gate.manifest" --compare "$T/gate.jsonl"
    has "... on the verdicts gone bad" "2 verdicts worse"
    expect_exit 2 "--devices all --compare with a missing baseline fails before any shard" -- env HB_SIM_DEVICES=2 \
        "$H" run $G --manifest "$TD/good/gate.manifest" --compare "$T/none.jsonl"
    expect_exit 3 "HB_SIM_DEVICES=0 leaves the emulator no device" -- env HB_SIM_DEVICES=0 "$H" run --backend sim --list
    has "... saying why" "HB_SIM_DEVICES=0: expected a number of devices from 1 to 8"

    # Three cases that each pass the host check (11x their buffers) but not together: every
    # used case's data stays for the run.
    s=$(awk '/^MemTotal:/ { printf "%d", sqrt($2 * 1024 / 132 * 0.9) }' /proc/meminfo)
    printf 'sgemm big1 M=%s N=%s K=%s\nsgemm big2 M=%s N=%s K=%s\nsgemm big3 M=%s N=%s K=%s\n' \
        "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" >"$T/big.cases"
    expect_exit 2 "cases that fit one by one but not together are refused before any is made" -- timeout 20 bash -c \
        "ulimit -v 8000000; $H run --backend sim --width 32 --kernel cuda/sgemm_naive --cases $T/big.cases"
    has "... naming the case that crosses the line" "big.cases:2: case big2 brings the run's case data to about"

    # Killed once the record is open: its temporary is there (or, as before the fix, the
    # baseline itself was emptied), before any result.
    cp "$T/gate.jsonl" "$T/gate.keep"
    "$H" run --backend sim --width 32 --kernel cuda/fault_timeout --case edge_1x2x3 --timeout 30 \
        --record "$T/gate.jsonl" >"$T/out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        { ls "$T"/gate.jsonl.?????? >/dev/null 2>&1 || ! cmp -s "$T/gate.jsonl" "$T/gate.keep"; } && break
        sleep 0.05
    done
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    if cmp -s "$T/gate.jsonl" "$T/gate.keep"; then ok "SIGKILL during --record leaves the old baseline whole"
    else bad "SIGKILL during --record leaves the old baseline whole" "$T/out"; fi

    json_check "the JSON header names the release as --version does" "$T/gate.jsonl" \
        "json.loads(open(sys.argv[1]).readline())['harness'] == open('$T/version').readline().split(' ', 1)[1].strip()"

    R="--backend sim --width 32 --only-manifest --manifest $TD/bad/gate.manifest --case edge_1x2x3"
    "$H" run $R --json "$T/red.jsonl" >"$T/out" 2>&1
    : >"$T/r_empty.jsonl"
    head -n 1 "$T/red.jsonl" >"$T/r_header.jsonl"
    head -n 2 "$T/red.jsonl" >"$T/r_killed.jsonl"
    for k in empty header killed; do
        expect_exit 2 "--rerun-failed of a $k run's JSON is refused" -- "$H" run $R --rerun-failed "$T/r_$k.jsonl"
    done
    has "... saying why, with the file" "--rerun-failed $T/r_killed.jsonl: no end record"
    expect_exit 1 "--rerun-failed of a whole red run reruns its failure" -- "$H" run $R --rerun-failed "$T/red.jsonl"
fi

if [ -z "$(device_count sim)" ]; then
    skip "ci/gate passes the harness's exit code through make" "sim backend not built"
else
    # The conformance recipe with a run that finds no device (make's all is up to date here).
    expect_exit 3 "ci/gate conformance: the harness's exit 3 (no device), not make's 2" -- env HB_SIM_DEVICES=0 \
        ci/gate --no-print-directory conformance BUILD="$BUILD" "HB_RUN=$H run --backend sim"
    has "... and make's log says so" "conformance: the harness exited 3"
fi

if [ -z "$(device_count sim)" ]; then
    skip "the emulator's cache of built kernels" "sim backend not built"
else
    echo "integration: the emulator's cache of built kernels (issue 27)"
    C=$T/trust-cache # its own: other parts share $T/cache
    gate_run() { env XDG_CACHE_HOME="$C" "$H" run --backend sim --only-manifest --width 32 --case edge_1x2x3 "$@"; }
    products() { find "$C/gpu-harness/sim" -maxdepth 1 -name '*.so' ! -name '*.unchecked.so'; }
    # Leftovers: anything but sealed products and compiled objects, their seals, kept logs and
    # the (empty) lock files one compile of a file at a time holds.
    leftovers() {
        find "$C/gpu-harness/sim" -mindepth 1 ! -name '*.so' ! -name '*.so.sha256' ! -name '*.o' ! -name '*.o.sha256' \
            ! -name '*.log' ! -name '*.lock'
    }
    expect_exit 1 "a compile killed by --timeout is an ERROR" -- gate_run --manifest "$TD/slow/slow.manifest" --timeout 1
    has "... as a timeout" "no answer in 1 s"
    expect_exit 0 "the next build in the cache passes" -- gate_run --manifest "$TD/good/gate.manifest"
    if [ -z "$(leftovers)" ]; then ok "... and no temporaries of the killed build are left"
    else leftovers >"$T/left"; bad "... and no temporaries of the killed build are left" "$T/left"; fi
    so=$(products)
    [ "$(echo "$so" | wc -l)" = 1 ] || bad "one product in the cache, not: $so"
    : >"$so"
    expect_exit 0 "an emptied cached kernel is rebuilt, not a SKIP" -- gate_run --manifest "$TD/good/gate.manifest"
    if [ -s "$so" ]; then ok "... its object built again"; else bad "... its object built again" "$T/out"; fi
    chmod o+w "$so"
    expect_exit 0 "a cached kernel writable by others is rebuilt" -- gate_run --manifest "$TD/good/gate.manifest"
    if [ -f "$so" ] && [ -z "$(find "$so" -perm -o+w)" ]; then ok "... and no longer writable by others"; else bad "... and no longer writable by others" "$T/out"; fi

    # A header that appears after the first build: the cached product must not be reused.
    mkdir -p "$T/hi"
    sed 's|^#include <cuda_runtime.h>|&\n#if __has_include("extra.h")\n#include "extra.h"\n#endif\n#ifndef GATE_BUG\n#define GATE_BUG 0.0f\n#endif|; s|= acc;|= acc + GATE_BUG;|' \
        "$TD/good/gate.cu" >"$T/hi/gate.cu"
    cp "$TD/good/gate.manifest" "$T/hi/"
    expect_exit 0 "__has_include: without the header the kernel passes" -- gate_run --manifest "$T/hi/gate.manifest"
    printf '#define GATE_BUG 1.0f\n' >"$T/hi/extra.h"
    expect_exit 1 "... with it, the kernel is rebuilt and fails (as a fresh cache does)" -- gate_run --manifest "$T/hi/gate.manifest"

    mkdir -p "$T/d\$x"
    cp "$TD/good/gate.cu" "$TD/good/gate.manifest" "$T/d\$x/"
    expect_exit 0 "a source path holding \$ builds and passes" -- gate_run --manifest "$T/d\$x/gate.manifest"
fi

if [ -n "$(device_count sim)" ]; then
    echo "integration: a kernel's grandchild that left its process group does not outlive the harness"
    HB_TEST_ORPHAN_FILE="$T/orphan.pid" "$H" run --backend sim --width 32 --only-manifest \
        --manifest tests/data/orphan/orphan.manifest --case sum_4097 --quiet >"$T/out" 2>&1
    orphan=$(cat "$T/orphan.pid" 2>/dev/null)
    if [ -z "$orphan" ]; then
        bad "the orphan kernel started its grandchild" "$T/out"
    elif kill -0 "$orphan" 2>/dev/null; then
        bad "a setsid grandchild of a kernel is ended when the harness exits (pid $orphan still runs)" "$T/out"
        kill -9 "$orphan" 2>/dev/null
    else
        ok "a setsid grandchild of a kernel is ended when the harness exits"
    fi
fi

# Issue 47: children with deadlines. Every child the harness waits on (a C reference, its
# compiler, an oracle, a worker) has a deadline, whoever holds its output, and none of them, nor
# anything they start, can stop the harness (a seccomp filter: lib/child_guard.c).
if [ -z "$(device_count sim)" ]; then
    skip "issue 47: children with deadlines" "sim backend not built"
else
    echo "integration: issue 47: children with deadlines, and none can stop the harness"
    C=tests/data/children
    CR="--backend sim --width 32 --timeout 20 --only-manifest --cases $C/children.cases"
    # dead PID: gone, or a zombie that whoever adopted it has not reaped.
    dead() { [ ! -e "/proc/$1" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" = Z ]; }
    expect_exit 1 "a kernel, a reference, an oracle and a host constructor SIGSTOP the harness: the run ends" -- \
        timeout -k 5 90 env XDG_CACHE_HOME="$T/cache" "$H" run $CR --manifest $C/stops.manifest --json "$T/stops.jsonl"
    json_check "... every stop refused: the stopping kernel's wrong answer is the one FAIL" "$T/stops.jsonl" \
        "sorted((r['kernel'], r['verdict']) for r in recs) == [('port_of_stopper', 'PASS'), ('stops_ctor', 'PASS'), ('stops_kernel', 'FAIL'), ('stops_oracle', 'PASS'), ('stops_ref', 'PASS')]"
    expect_exit 1 "... and so under --devices all (a shard's children stop neither it nor the run above)" -- \
        timeout -k 5 90 env HB_SIM_DEVICES=2 XDG_CACHE_HOME="$T/cache" "$H" run $CR --devices all \
        --manifest $C/stops.manifest --quiet

    start=$(date +%s)
    expect_exit 1 "a reference and an oracle that close their output and spin are ERRORs" -- timeout -k 5 90 \
        env XDG_CACHE_HOME="$T/cache" "$H" run $CR --manifest $C/hangs.manifest --kernel ref_closes,port_of_closer \
        --json "$T/hangs.jsonl"
    json_check "... at their timeout (3 s), reference-error" "$T/hangs.jsonl" \
        "len(recs) == 2 and 'did not return in 3 s: killed' in find(kernel='ref_closes')[0]['why'] and 'no answer in 3 s: killed' in find(kernel='port_of_closer')[0]['why'] and all('reference-error' in r['classes'] for r in recs)"
    if [ $(($(date +%s) - start)) -lt 60 ]; then ok "... in well under a minute"
    else bad "... in well under a minute (took $(($(date +%s) - start)) s)" "$T/out"; fi

    expect_exit 1 "a C compiler (CC) that closes its output and never ends: the reference is an ERROR" -- \
        timeout -k 5 90 env HB_TEST_CC_PID="$T/cc.pid" CC="$PWD/$C/cc_hangs.sh" XDG_CACHE_HOME="$T/cache" \
        "$H" run $CR --manifest $C/cc.manifest
    has "... killed at the reference's timeout" "cc_hangs.sh did not finish in 3 s: killed"
    cc_pid=$(cat "$T/cc.pid" 2>/dev/null)
    if [ -n "$cc_pid" ] && dead "$cc_pid"; then ok "... and what it started did not outlive the run"
    else bad "... and what it started did not outlive the run (pid '$cc_pid')" "$T/out"; [ -n "$cc_pid" ] && kill -9 "$cc_pid"; fi

    expect_exit 1 "references that leave processes, write before y, hide a fault or unprotect an input" -- \
        timeout -k 5 90 env XDG_CACHE_HOME="$T/cache" "$H" run $CR --manifest $C/sly.manifest --json "$T/sly.jsonl"
    json_check "... are each the harness's ERROR naming what it did, never the right kernel's FAIL" "$T/sly.jsonl" \
        "len(recs) == 5 and all(r['verdict'] == 'ERROR' and 'reference-error' in r['classes'] for r in recs) and all(w in find(kernel=k)[0]['why'] for k, w in [('ref_helper', 'returned leaving 1 process it started running (killed)'), ('ref_scribbles', 'returned leaving 1 process it started running (killed)'), ('ref_before', 'wrote before the start of y (at byte -4'), ('ref_hides', 'exited with status 0 without returning'), ('ref_unprotects', 'wrote its input x (at byte 0)')])"

    mkdir -p "$T/sigtmp"
    env HB_TEST_CC_PID="$T/sig.pid" CC="$PWD/$C/cc_hangs.sh" TMPDIR="$T/sigtmp" XDG_CACHE_HOME="$T/cache" \
        "$H" run $CR --manifest $C/cc.manifest >"$T/out" 2>&1 &
    pid=$!
    for _ in $(seq 200); do [ -s "$T/sig.pid" ] && break; sleep 0.05; done
    kill -TERM $pid
    wait $pid
    rc=$?
    sig_pid=$(cat "$T/sig.pid" 2>/dev/null)
    if [ "$rc" = 143 ] && [ -z "$(ls "$T/sigtmp")" ]; then ok "SIGTERM while a reference builds: exit 143, no hb-ref.* folder left"
    else bad "SIGTERM while a reference builds: exit 143, no hb-ref.* folder left (exit $rc; $(ls "$T/sigtmp"))" "$T/out"; fi
    if [ -n "$sig_pid" ] && dead "$sig_pid"; then ok "... and the compiler's children did not outlive the run"
    else bad "... and the compiler's children did not outlive the run (pid '$sig_pid')" "$T/out"; [ -n "$sig_pid" ] && kill -9 "$sig_pid"; fi

    expect_exit 1 "a kernel that does not compile, in a file named k_error.cu" -- env XDG_CACHE_HOME="$T/cache" \
        "$H" run $CR --manifest $C/error.manifest --json "$T/kerr.jsonl"
    json_check "... quotes the compiler's error line, not one that merely holds the path" "$T/kerr.jsonl" \
        "len(recs) == 1 and 'k_error.cu:7:' in recs[0]['why'] and ': error:' in recs[0]['why'] and 'In function' not in recs[0]['why']"
fi
