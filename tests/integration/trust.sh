# SPDX-License-Identifier: MIT
# tests/integration/trust.sh: inputs and results the harness must not trust blindly (issue 27):
# the gate across device shards, runs that cannot prove they were whole, inputs that block or
# explode, outputs that collide, and the emulator's cache of built kernels; and what must not be
# silent (issue 47): kernels no case runs, shards of different runs, wrong HB_SIM_DEVICES,
# HB_ROOT or HB_BUILD_DIR, a missing HOME.
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
# issue 47: without --backend too, not a bare "no case ran" (exit 4).
expect_exit 2 "issue 47: a wrong HB_ROOT without --backend is bad usage" -- env HB_ROOT="$T/noroot" "$H" run
has "... naming the folder" "no backend to run: $T/noroot/harness/backends holds no backend"
has "... and the variable" "is HB_ROOT right?"
mkdir -p "$T/nobuild/build"
expect_exit 2 "issue 47: a wrong HB_BUILD_DIR without --backend is bad usage" -- env HB_BUILD_DIR="$T/nobuild/build" \
    "$H" run --only-manifest --manifest tests/data/nocase/nocase.manifest --cases tests/data/nocase/n.cases
has "... naming the folder and the variable" "$T/nobuild/harness/backends holds no backend (a folder with a backend.mk): is HB_BUILD_DIR right?"

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
    # issue 47: a wrong HB_SIM_DEVICES is the user's setting gone wrong, not a machine without
    # devices (exit 3, which the CMake package's test reads as Skipped).
    for d in 0 9 -1 abc 2x; do
        expect_exit 2 "issue 47: HB_SIM_DEVICES=$d is bad usage" -- env HB_SIM_DEVICES=$d "$H" run --backend sim --list
        has "... naming the variable and the range" "HB_SIM_DEVICES=$d: expected a number of devices from 1 to 8"
    done
    expect_exit 2 "issue 47: ... also without --backend" -- env HB_SIM_DEVICES=0 "$H" run --list

    # Three cases that each pass the host check (11x their buffers) but not together: every
    # used case's data stays for the run.
    s=$(awk '/^MemTotal:/ { printf "%d", sqrt($2 * 1024 / 132 * 0.9) }' /proc/meminfo)
    printf 'sgemm big1 M=%s N=%s K=%s\nsgemm big2 M=%s N=%s K=%s\nsgemm big3 M=%s N=%s K=%s\n' \
        "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" >"$T/big.cases"
    expect_exit 2 "cases that fit one by one but not together are refused before any is made" -- timeout 20 bash -c \
        "ulimit -v 8000000; $H run --backend sim --width 32 --kernel cuda/sgemm_naive --cases $T/big.cases"
    has "... naming the case that crosses the line" "big.cases:2: case big2 brings the run's case data to about"

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
    # The conformance recipe with a run that finds no device. -o all: make builds nothing (BUILD
    # may be another tree's build, which this tree's sources must not rebuild).
    expect_exit 3 "ci/gate conformance: the harness's exit 3 (no device), not make's 2" -- env CUDA_VISIBLE_DEVICES= \
        ci/gate --no-print-directory -o all conformance BUILD="$BUILD" "HB_RUN=$H run --backend cuda"
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

if [ -z "$(device_count sim)" ]; then
    skip "issue 47: kernels that never run, shards of two runs, a missing HOME" "sim backend not built"
else
    echo "integration: issue 47: every listed kernel is accounted for"
    N=tests/data/nocase
    NC=(--backend sim --width 32 --only-manifest --manifest "$N/nocase.manifest" --cases "$N/n.cases")
    expect_exit 1 "issue 47: kernels no case runs fail the run beside one that passes" -- "$H" run "${NC[@]}" \
        --json "$T/nc.jsonl" --junit "$T/nc.xml" --html "$T/nc.html"
    json_check "issue 47: [typo] is an ERROR row (no-case) saying the catalogue gives n, not N, and where it is" \
        "$T/nc.jsonl" "[(r['case'], r['verdict'], r['classes']) for r in find(kernel='typo')] == [('*', 'ERROR', 'no-case')] and 'no custom case of $N/n.cases gives exactly its sizes N (they give n)' in find(kernel='typo')[0]['why'] and 'nocase.manifest:16' in find(kernel='typo')[0]['why']"
    json_check "issue 47: a cases glob matching nothing, custom or sgemm, is an ERROR row naming the glob" "$T/nc.jsonl" \
        "all(len(find(kernel=k)) == 1 and find(kernel=k)[0]['verdict'] == 'ERROR' and 'its cases glob nosuch* matches no ' + op + ' case of $N/n.cases' in find(kernel=k)[0]['why'] for k, op in (('glob_none', 'custom'), ('gemm_none', 'sgemm')))"
    json_check "issue 47: ... while [good] passes both cases" "$T/nc.jsonl" \
        "[r['verdict'] for r in find(kernel='good')] == ['PASS', 'PASS']"
    python3 - "$T/nc.xml" >"$T/py" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
errors = {c.get("name") + " " + c.get("classname", "") for c in cases if c.find("error") is not None}
assert sum("typo" in e for e in errors) == 1 and sum("glob_none" in e for e in errors) == 1, errors
PY
    if [ $? = 0 ]; then ok "issue 47: ... and JUnit has an error for each"; else bad "issue 47: ... and JUnit has an error for each" "$T/py"; fi
    if grep -q "typo" "$T/nc.html" && grep -q "never runs" "$T/nc.html"; then ok "issue 47: ... and the HTML page says so"
    else bad "issue 47: ... and the HTML page says so" "$T/nc.html"; fi
    expect_exit 0 "issue 47: --allow-empty makes them SKIP rows that do not fail" -- "$H" run "${NC[@]}" --allow-empty \
        --json "$T/nc-allow.jsonl"
    json_check "issue 47: ... still saying why" "$T/nc-allow.jsonl" \
        "all(r['verdict'] == 'SKIP' and r['classes'] == 'no-case' and 'never runs' in r['why'] for k in ('typo', 'glob_none', 'gemm_none') for r in find(kernel=k))"
    expect_exit 1 "issue 47: a --case filter does not hide them (the catalogue never gives N)" -- "$H" run "${NC[@]}" \
        --case n_1 --json "$T/nc-case.jsonl"
    json_check "issue 47: ... [typo] is still its ERROR row" "$T/nc-case.jsonl" \
        "[r['verdict'] for r in find(kernel='typo')] == ['ERROR'] and len(find(kernel='good')) == 1"
    expect_exit 4 "issue 47: filters that leave every kernel out still exit 4" -- "$H" run "${NC[@]}" --kernel good \
        --shard 2/3
    "$H" run "${NC[@]}" --list >"$T/nc.ids" 2>"$T/out"
    has "issue 47: --list names each kernel that never runs on standard error" "cuda/typo never runs: no custom case of"
    if [ "$(cat "$T/nc.ids")" = "$(printf 'sim:0:w32:cuda/good:n_1\nsim:0:w32:cuda/good:n_100')" ]; then
        ok "issue 47: ... its standard output the ids alone"
    else bad "issue 47: ... its standard output the ids alone" "$T/nc.ids"; fi

    echo "integration: issue 47: merge refuses shards of different runs"
    S=(--backend sim --width 32 --only-manifest --manifest "$TD/good/gate.manifest" --quiet)
    "$H" run "${S[@]}" --case edge_1x2x3,edge_15x16x17 --shard 0/2 --json "$T/m0.jsonl" >"$T/out" 2>&1
    "$H" run "${S[@]}" --case edge_1x2x3,edge_15x16x17 --shard 1/2 --json "$T/m1.jsonl" >"$T/out" 2>&1
    "$H" run "${S[@]}" --case edge_1x2x3,edge_2x3x5 --shard 1/2 --json "$T/x1.jsonl" >"$T/out" 2>&1
    expect_exit 0 "issue 47: shards of one run merge" -- "$H" merge --json "$T/m.jsonl" "$T/m0.jsonl" "$T/m1.jsonl"
    expect_exit 2 "issue 47: shard 1 of another selection is refused" -- "$H" merge --json "$T/x.jsonl" \
        "$T/m0.jsonl" "$T/x1.jsonl"
    has "... saying so" "x1.jsonl: shard 1/2 is not of the run $T/m0.jsonl is a shard of: its selection differs"

    echo "integration: issue 47: a missing HOME is not made"
    rm -rf "$T/nohome" "$T/tmpd" && mkdir -p "$T/tmpd"
    expect_exit 0 "issue 47: a run-time compile with HOME missing and no XDG_CACHE_HOME" -- env -u XDG_CACHE_HOME \
        HOME="$T/nohome/home" TMPDIR="$T/tmpd" "$H" run "${S[@]}" --case edge_1x2x3
    if [ ! -e "$T/nohome" ]; then ok "issue 47: ... HOME is not created"; else bad "issue 47: ... HOME is not created" "$T/out"; fi
    if [ -d "$T/tmpd/gpu-harness-$(id -u)/sim" ]; then ok "issue 47: ... the cache is a folder of the user's own in TMPDIR"
    else bad "issue 47: ... the cache is a folder of the user's own in TMPDIR" "$T/out"; fi
fi

# issue 47: a run killed outright, interrupted, or short of files and processes. The kernel
# stall_sum (tests/data/stall) writes its worker's parent's pid to a marker and sleeps, so the
# script signals that process (the harness, or a --devices all shard) at a moment it knows:
# no kernel has to signal the harness itself.
if [ -z "$(device_count sim)" ]; then
    skip "issue 47: reports that cannot lie about a death" "sim backend not built"
else
    echo "integration: issue 47: reports that cannot lie about a death"
    SD=tests/data/stall
    STALL="--backend sim --width 32 --jobs 1 --only-manifest --manifest $SD/stall.manifest --case sum_4097 --timeout 120"
    stall_wait() { for _ in $(seq 900); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
    # stall_run SIGNAL WHO ARGS...: runs the harness with stall_sum stalling and, once its marker
    # is there, sends SIGNAL to WHO: "harness", or "marker", the pid the marker holds (the
    # stalled worker's parent); $rc is the harness's exit status.
    stall_run() {
        local sig=$1 who=$2 marker=$T/stall.pid
        shift 2
        rm -f "$marker"
        HB_TEST_STALL_FILE="$marker" XDG_CACHE_HOME="$T/cache" "$H" run "$@" >"$T/out" 2>&1 &
        local pid=$!
        if stall_wait "$marker"; then
            local target=$pid
            [ "$who" = marker ] && target=$(cat "$marker")
            kill -"$sig" "$target"
        else
            kill -KILL $pid
        fi
        wait $pid
        rc=$?
    }
    # junit_fails FILE WORDS: the JUnit parses, and a CI reader sees an error saying WORDS.
    junit_fails() {
        python3 - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
errors = [e.get("message", "") for e in root.iter("error")]
sys.exit(0 if int(root.get("errors")) >= 1 and any(sys.argv[2] in m for m in errors) else 1)
PY
    }
    P="--record $T/s_base.jsonl --junit $T/s.xml --html $T/s.html --csv $T/s.csv --json $T/s.jsonl"
    expect_exit 0 "a whole run of the stall kernels (not asked to stall) records a baseline" -- env \
        XDG_CACHE_HOME="$T/cache" "$H" run $STALL $P
    for f in s_base.jsonl s.html s.csv; do cp "$T/$f" "$T/$f.keep"; done

    stall_run KILL marker $STALL $P
    if [ $rc = 137 ]; then ok "SIGKILL of the harness mid-run: exit 137"; else bad "SIGKILL mid-run: exit $rc, want 137" "$T/out"; fi
    if junit_fails "$T/s.xml" "the harness run did not finish (killed?)" 2>"$T/py"; then
        ok "... its JUnit reads as a failure saying the run did not finish"
    else bad "... its JUnit reads as a failure saying the run did not finish" "$T/s.xml"; fi
    if grep -q "Not finished" "$T/s.html"; then ok "... its HTML page says the run did not finish (not empty, not the last run's)"
    else bad "... its HTML page says the run did not finish" "$T/s.html"; fi
    if cmp -s "$T/s.csv" "$T/s.csv.keep" && cmp -s "$T/s_base.jsonl" "$T/s_base.jsonl.keep"; then
        ok "... the previous CSV and baseline stay whole"
    else bad "... the previous CSV and baseline stay whole" "$T/s.csv"; fi
    if ls "$T"/s.csv.?????? "$T"/s.html.?????? "$T"/s_base.jsonl.?????? >"$T/ls" 2>/dev/null; then
        bad "... and no temporaries are left beside them" "$T/ls"
    else ok "... and no temporaries are left beside them"; fi
    json_check "... its JSON lines hold the result it reached, with no end record" "$T/s.jsonl" \
        "len(recs) == 1 and recs[0]['kernel'] == 'plain_sum' and json.loads(open(sys.argv[1]).readlines()[-1])['record'] == 'result'"

    stall_run INT marker $STALL $P
    if [ $rc = 130 ]; then ok "SIGINT during --record: exit 130"; else bad "SIGINT during --record: exit $rc, want 130" "$T/out"; fi
    if cmp -s "$T/s_base.jsonl" "$T/s_base.jsonl.keep"; then ok "... the previous baseline stays (an interrupted run is no baseline)"
    else bad "... the previous baseline stays (an interrupted run is no baseline)" "$T/out"; fi
    has "... saying so" "--record $T/s_base.jsonl not written: the run was interrupted"
    if junit_fails "$T/s.xml" "the run was interrupted" 2>"$T/py"; then ok "... its JUnit reads as a failure saying interrupted"
    else bad "... its JUnit reads as a failure saying interrupted" "$T/s.xml"; fi
    if grep -q "This run was interrupted" "$T/s.html"; then ok "... and so does its HTML page"; else bad "... and so does its HTML page" "$T/s.html"; fi

    D="--backend sim --devices all --width 32 --only-manifest --manifest $SD/stall.manifest --case sum_4097 --timeout 120"
    echo "previous baseline" >"$T/d_base.jsonl"
    HB_SIM_DEVICES=2 stall_run INT harness $D --json "$T/d.jsonl" --junit "$T/d.xml" --record "$T/d_base.jsonl"
    if [ $rc = 130 ]; then ok "SIGINT to --devices all: exit 130"; else bad "SIGINT to --devices all: exit $rc, want 130" "$T/out"; fi
    if tail -1 "$T/d.jsonl" | grep -q '"record":"end".*"interrupted":true'; then ok "... the merged end record says interrupted"
    else bad "... the merged end record says interrupted" "$T/d.jsonl"; fi
    if grep -qx "previous baseline" "$T/d_base.jsonl"; then ok "... and its --record keeps the previous baseline"
    else bad "... and its --record keeps the previous baseline" "$T/d_base.jsonl"; fi

    # The marker holds the stalled worker's parent: here one shard, killed alone.
    HB_SIM_DEVICES=2 stall_run KILL marker $D --json "$T/k.jsonl" --junit "$T/k.xml" --html "$T/k.html"
    if [ $rc = 1 ]; then ok "--devices all with a shard SIGKILLed: exit 1 with what the others had"
    else bad "--devices all with a shard SIGKILLed: exit $rc, want 1" "$T/out"; fi
    has "... naming the shard that ended early" "before its reports did: the results it had are merged"
    if tail -1 "$T/k.jsonl" | grep -q '"record":"end".*"interrupted":true'; then ok "... the merged JSON ends saying interrupted"
    else bad "... the merged JSON ends saying interrupted" "$T/k.jsonl"; fi
    if junit_fails "$T/k.xml" "the run was interrupted" 2>"$T/py"; then ok "... its JUnit reads as a failure"
    else bad "... its JUnit reads as a failure" "$T/k.xml"; fi

    # A full TMPDIR, then a full cache, on a 64 KiB tmpfs (root only): the build's headline is
    # the full disk, not what the compiler's cut log names after it.
    mkdir -p "$T/small"
    if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
        F="--backend sim --width 32 --only-manifest --manifest $SD/stall.manifest --case sum_4097 --kernel cuda/plain_sum"
        dd if=/dev/zero of="$T/small/fill" bs=4k count=100 2>/dev/null
        mkdir -m 700 "$T/cfull"
        expect_exit 1 "a build in a full TMPDIR is an ERROR" -- env XDG_CACHE_HOME="$T/cfull" TMPDIR="$T/small" "$H" run $F
        has "... headed by the full disk" "): no space left on device in $T/small (TMPDIR): "
        rm -f "$T/small/fill"
        mkdir -m 700 "$T/small/c"
        dd if=/dev/zero of="$T/small/fill" bs=4k count=100 2>/dev/null
        expect_exit 1 "a build in a full cache is an ERROR" -- env XDG_CACHE_HOME="$T/small/c" "$H" run $F
        has "... headed by the full disk" "): no space left on device in $T/small/c/gpu-harness/sim (the cache): "
        umount "$T/small"
    else
        skip "builds on a full TMPDIR and cache" "needs root and a tmpfs mount"
    fi

    expect_exit 0 "ulimit -f 1000: a run, not a death by SIGXFSZ" -- bash -c \
        "ulimit -f 1000; exec $H run --backend sim --width 32 --kernel cuda/sgemm_naive --case edge_1x2x3 --json $T/f.jsonl"
    has "... saying the limit keeps the run from its shared memory file" "the file size limit (ulimit -f: 1000 KiB)"
fi

# issue 47: a run short of descriptors, and a gate cancelled mid-run.
if [ -z "$(device_count sim)" ]; then
    skip "issue 47: a run short of descriptors; ci/gate cancelled" "sim backend not built"
else
    echo "integration: issue 47: a run short of descriptors; ci/gate cancelled"
    expect_exit 1 "ulimit -n 8: the groups no worker could start for are ERROR rows, not an interrupted run" -- bash -c \
        "ulimit -n 8; exec $H run --backend sim --width 4,32 --jobs 2 --kernel cuda/sgemm_naive --case edge_1x2x3 --json $T/n.jsonl"
    json_check "... each naming the limit, in whole reports" "$T/n.jsonl" \
        "[(r['width'], r['verdict'], 'ulimit -n' in r['why']) for r in recs] == [(4, 'ERROR', True), (32, 'ERROR', True)] and json.loads(open(sys.argv[1]).readlines()[-1])['interrupted'] is False"

    rm -f "$T/stall.pid" "$BUILD/conformance.exit"
    HB_TEST_STALL_FILE="$T/stall.pid" XDG_CACHE_HOME="$T/cache" ci/gate --no-print-directory -o all conformance \
        BUILD="$BUILD" "HB_RUN=$H run $STALL --json $T/g.jsonl" >"$T/out" 2>&1 &
    gate=$!
    stall_wait "$T/stall.pid" && kill -TERM $gate
    wait $gate
    rc=$?
    run_pid=$(cat "$T/stall.pid" 2>/dev/null)
    if [ $rc = 143 ] && [ -n "$run_pid" ] && ! kill -0 "$run_pid" 2>/dev/null; then
        ok "SIGTERM to ci/gate: exit 143, the harness stopped with it"
    else
        bad "SIGTERM to ci/gate: exit $rc, the harness (pid $run_pid) must not outlive it" "$T/out"
        [ -n "$run_pid" ] && kill -KILL "$run_pid" 2>/dev/null
    fi
    sleep 1
    if [ "$(cat "$BUILD/conformance.exit" 2>/dev/null)" != 0 ]; then ok "... and nothing writes a passing exit code after it"
    else bad "... and nothing writes a passing exit code after it" "$T/out"; fi
    if tail -1 "$T/g.jsonl" | grep -q '"interrupted":true'; then ok "... its run's reports say interrupted"
    else bad "... its run's reports say interrupted" "$T/g.jsonl"; fi
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
