# SPDX-License-Identifier: MIT
# tests/integration/supervision.sh: parallel runs, --maxfail, the status line, hostile kernels,
# --sanitize, runaway processes, bounded inputs.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
if [ -z "$(device_count sim)" ]; then
    skip "supervision checks" "sim backend not built"
else
    echo "integration: parallel runs give a serial run's reports (-j)"
    kernels='cuda/sgemm_naive,cuda/sgemm_tiled,cuda/reduce_*,cuda/fault_oob,cuda/fault_crash,cuda/canary_*'
    backends=sim
    if [ -n "$(device_count vulkan)" ] && [ "$(device_count vulkan)" != 0 ]; then
        kernels="$kernels,glsl/sgemm_naive,glsl/reduce_warp32"
        backends=sim,vulkan
    fi
    for j in 1 3; do
        "$H" run --backend "$backends" --width 8,32 --kernel "$kernels" --case 'edge_1*,sum_*,exact_9x8x7' --jobs $j \
            --json "$T/j$j.jsonl" --junit "$T/j$j.xml" --quiet >"$T/j$j.out" 2>&1
    done
    if [ "$(wc -l <"$T/j1.jsonl" 2>/dev/null || echo 0)" -gt 100 ] &&
        tests/same_results.py "$T/j1.jsonl" "$T/j3.jsonl" "$T/j1.xml" "$T/j3.xml" >"$T/py" 2>&1
    then ok "-j 3 and -j 1 write the same JSON and JUnit, timing aside"; else bad "-j 3 and -j 1 write the same JSON and JUnit" "$T/py"; fi
    # The workers share the cores: each emulator gets cores / jobs threads (at least one), so
    # the two runs above also compared the emulator at two thread counts (on 2 cores: 2 and 1).
    cores=$(nproc)
    if grep -q "threads per worker $cores;" "$T/j1.out" &&
        grep -q "threads per worker $((cores >= 6 ? cores / 3 : 1));" "$T/j3.out"; then
        ok "-j 1: the emulator on every core; -j 3: the cores shared among the workers"
    else bad "the emulator's threads per worker follow -j" "$T/j3.out"; fi
    HB_SIM_THREADS=3 "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case edge_1x2x3 --jobs 2 \
        >"$T/simthreads.out" 2>&1
    if grep -q "threads per worker HB_SIM_THREADS=3;" "$T/simthreads.out"; then
        ok "HB_SIM_THREADS, when set, is the user's choice"
    else bad "HB_SIM_THREADS, when set, is the user's choice" "$T/simthreads.out"; fi

    if [ -n "$(device_count vulkan)" ] && [ "$(device_count vulkan)" != 0 ]; then
        echo "integration: long groups run in parts side by side, their rows as one group's"
        # llvmpipe offers 2 GiB: four idle workers' contexts used to block every placement.
        pk='glsl/sgemm_naive,glsl/sgemm_tiled,glsl/fault_sgemm_oob,glsl/reduce_generic'
        # One run of those kernels on lavapipe into $T/NAME.*, its exit status in NAME.out;
        # then whether it exited 0 and reports as the serial run (and what else $3 greps).
        lavapipe_run() {
            local name=$1 jobs=$2; shift 2
            env "$@" timeout 300 "$H" run --backend vulkan --width 8 --kernel "$pk" --case 'edge_*,exact_*,sum_*' \
                --jobs "$jobs" --json "$T/$name.jsonl" --junit "$T/$name.xml" >"$T/$name.out" 2>&1
            echo "exit $?" >>"$T/$name.out"
        }
        same_as_serial() {
            local name=$1 what=$2 also=${3:-exit 0}
            if grep -q 'exit 0' "$T/$name.out" && grep -q "$also" "$T/$name.out" &&
                tests/same_results.py "$T/parts1.jsonl" "$T/$name.jsonl" "$T/parts1.xml" "$T/$name.xml" >"$T/py" 2>&1
            then ok "$what"
            else
                cat "$T/py" >>"$T/$name.out"
                bad "$what" "$T/$name.out"
            fi
        }
        lavapipe_run parts1 1
        lavapipe_run parts4 4
        same_as_serial parts4 "-j 4 on lavapipe finishes, cuts SGEMM groups into parts, and reports as -j 1 does" \
            'glsl/sgemm_naive: [0-9]* cases in .* (parts side by side)'
        echo "integration: a discrete GPU's path on lavapipe: buffers behind a staging buffer, transfers in batches"
        lavapipe_run staged 4 HB_VK_STAGING=1 HB_VK_VALIDATION=1
        same_as_serial staged "HB_VK_STAGING=1 (validation on): the same reports as mapped memory"
        echo "integration: a kernel that fails to load does not take the next group down with its worker"
        awk 'BEGIN { RS = ""; ORS = "\n\n" } /vk_broken/ { print } ' tests/data/ukern/vulkan.manifest >"$T/first.manifest"
        awk 'BEGIN { RS = ""; ORS = "\n\n" } /vk_gemm_ab/ { print } ' tests/data/ukern/vulkan.manifest >>"$T/first.manifest"
        sed -i "s|^source = |source = $(pwd)/tests/data/ukern/|" "$T/first.manifest"
        XDG_CACHE_HOME="$T/cache" "$H" run --backend vulkan --width 8 --only-manifest --manifest "$T/first.manifest" \
            --case 'edge_*' --jobs 1 --json "$T/first.jsonl" --quiet >"$T/out" 2>&1
        json_check "... the broken kernel is one ERROR, the good one after it passes every case" "$T/first.jsonl" \
            "len(find(kernel='vk_broken')) == 1 and find(kernel='vk_gemm_ab') and all(r['verdict'] == 'PASS' for r in find(kernel='vk_gemm_ab'))"
    else
        skip "groups in parts" "no Vulkan device (the emulator's groups are never cut)"
    fi

    echo "integration: --maxfail stops the run, and the reports say so"
    printf '[crashes]\nop = sgemm\nlang = cuda\nsource = %s\nentry = fault_crash\nblock = 16 16 1\ngrid = N/16 M/16 1\n' \
        "$(pwd)/kernels/cuda/fault_crash.cu" >"$T/crashes.manifest"
    expect_exit 1 "--maxfail 2 fails the run" -- "$H" run --backend sim --width 32 --only-manifest \
        --manifest "$T/crashes.manifest" --case 'edge_*' --maxfail 2 --json "$T/maxfail.jsonl" --jobs 2
    json_check "--maxfail 2: two ERROR rows, then a SKIP row naming --maxfail" "$T/maxfail.jsonl" \
        "[r['verdict'] for r in recs] == ['ERROR', 'ERROR', 'SKIP'] and '--maxfail 2' in recs[2]['why']"
    expect_exit 1 "-x stops at the first failure" -- "$H" run --backend sim --width 32 --only-manifest \
        --manifest "$T/crashes.manifest" --case 'edge_*' -x --json "$T/x.jsonl"
    json_check "-x: one ERROR row, then the SKIP row" "$T/x.jsonl" "[r['verdict'] for r in recs] == ['ERROR', 'SKIP']"

    echo "integration: a status line on a terminal only, NO_COLOR respected"
    tty_run="$H run --backend sim --width 32 --only-manifest --manifest $T/crashes.manifest --case 'edge_*' --jobs 1"
    script -qec "NO_COLOR=1 $tty_run" /dev/null >"$T/tty.out" 2>&1
    script -qec "$tty_run" /dev/null >"$T/color.out" 2>&1
    if grep -q 'results/s' "$T/tty.out" && ! grep -q $'\033\\[31m' "$T/tty.out" && grep -q $'\033\\[31m' "$T/color.out"; then
        ok "a terminal gets the status line (group k of N, results/s, ETA), coloured unless NO_COLOR"
    else
        bad "a terminal gets the status line, coloured unless NO_COLOR" "$T/tty.out"
    fi
    "$H" run --backend sim --width 32 --only-manifest --manifest "$T/crashes.manifest" --case 'edge_*' >"$T/plain.out" 2>&1
    if ! grep -q 'results/s' "$T/plain.out" && ! grep -q $'\r' "$T/plain.out"; then
        ok "no status line when stdout is not a terminal"
    else
        bad "no status line when stdout is not a terminal" "$T/plain.out"
    fi

    echo "integration: a canary caught by an API error (a GPU's crash) ends its group, as a crash does"
    sed -e 's/^note   = float4 load from A + 1/expect = api-error/' -e "s|^source = oob.cu|source = $(pwd)/tests/data/sim/oob.cu|" \
        tests/data/sim/oob.manifest >"$T/apierr.manifest"
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$T/apierr.manifest" \
        --kernel 'cuda/misaligned_vec' --case 'edge_1x2x3,edge_15x16x17,edge_31x32x33' --json "$T/apierr.jsonl" --quiet >"$T/out" 2>&1
    json_check "... one XFAIL, not one new worker per case" "$T/apierr.jsonl" \
        "[(r['case'], r['verdict']) for r in recs] == [('edge_1x2x3', 'XFAIL')] and 'api-error' in recs[0]['classes']"

    echo "integration: hostile kernels (junk on the pipe and inherited descriptors, forks, crash output)"
    HM=tests/data/hostile/hostile.manifest
    export XDG_CACHE_HOME="$T/cache"
    "$H" run --backend sim --width 32 --only-manifest --manifest "$HM" --kernel junk_sgemm \
        --case 'edge_3x5x7,edge_5x7x8' --json "$T/junk.jsonl" --junit "$T/junk.xml" >"$T/out" 2>&1
    rc=$?
    if [ $rc = 1 ]; then ok "junk on the pipe: the run fails cleanly (exit 1)"; else bad "junk on the pipe: exit $rc, want 1" "$T/out"; fi
    json_check "junk on the pipe is a malformed message (ERROR per case); no junk line in --json" "$T/junk.jsonl" \
        "len(recs) == 2 and all(r['verdict'] == 'ERROR' and 'malformed' in r['why'] for r in recs)"
    if xmllint --noout "$T/junk.xml" 2>"$T/xml"; then ok "no junk in --junit"; else bad "no junk in --junit" "$T/xml"; fi
    HB_SIM_THREADS=1 timeout 120 "$H" run --backend sim --width 32 --only-manifest --manifest "$HM" --kernel fork_sgemm \
        --case 'edge_3x5x7,edge_5x7x8,edge_7x8x9' --json "$T/fork.jsonl" --quiet >"$T/out" 2>&1
    json_check "a kernel that forks: one row per case, no duplicate from the copy" "$T/fork.jsonl" \
        "[(r['case'], r['verdict']) for r in recs] == [('edge_3x5x7', 'PASS'), ('edge_5x7x8', 'PASS'), ('edge_7x8x9', 'PASS')]"
    t0=$(date +%s)
    HB_TEST_FORK=sleep timeout 120 "$H" run --backend sim --width 32 --only-manifest --manifest "$HM" --kernel fork_sgemm \
        --case 'edge_3x5x7,edge_5x7x8' --json "$T/forks.jsonl" --quiet >"$T/out" 2>&1
    took=$(($(date +%s) - t0))
    if [ $took -lt 30 ]; then ok "a forked copy that sleeps does not stall the group (${took} s)"; else bad "a forked copy stalls the group ${took} s" "$T/out"; fi
    json_check "its cases still pass" "$T/forks.jsonl" "len(recs) == 2 and all(r['verdict'] == 'PASS' for r in recs)"
    sleep 1
    ps -eo stat=,pid=,comm= | awk '$3 == "hb_fork_kid" && $1 !~ /^Z/' >"$T/pg"
    if [ -s "$T/pg" ]; then bad "a kernel's forked copies are gone with the run" "$T/pg"; else ok "a kernel's forked copies are gone with the run"; fi
    "$H" run --backend sim --width 32 --only-manifest --manifest "$HM" --kernel abort_sgemm --case edge_3x5x7 \
        --json "$T/abort.jsonl" >"$T/abort.out" 2>"$T/abort.err"
    json_check "a crash's stderr line is in its row" "$T/abort.jsonl" \
        "len(recs) == 1 and recs[0]['verdict'] == 'ERROR' and 'malloc(): corrupted top size' in recs[0]['why']"
    if grep -q 'corrupted top size' "$T/abort.err"; then bad "a crash's stderr is not loose on the terminal" "$T/abort.err"; else ok "a crash's stderr is not loose on the terminal"; fi
    unset XDG_CACHE_HOME

    echo "integration: --sanitize gives each group its own tool process (a stand-in for compute-sanitizer)"
    cat >"$T/compute-sanitizer" <<'SH'
#!/bin/sh
# compute-sanitizer's command line (--tool T --log-file L --print-limit N --report-api-errors no
# EXE ARGS...), its report and summary line in the log: one error for fault_oob, none otherwise.
log=$4
api=1
[ "$7 $8" = "--report-api-errors no" ] && api=0
shift 8
"$@"
rc=$?
echo "========= COMPUTE-SANITIZER" >"$log"
[ $api = 1 ] && echo "========= Program hit cudaErrorInvalidValue (error 1) on CUDA API call to cudaFuncGetParamInfo." >>"$log"
case "$*" in
*:cuda/fault_oob:*)
    n=1
    cat >>"$log" <<'LOG'
========= Invalid __global__ write of size 4 bytes
=========     at fault_oob+0x1b0 in /src/kernels/cuda/fault_oob.cu:21
=========     by thread (3,0,0) in block (0,0,0)
=========     Address 0x7f00a0001040 is out of bounds
=========     and is 64 bytes after the nearest allocation at 0x7f00a0000000 of size 4096 bytes
=========
========= Invalid __global__ write of size 4 bytes
=========     at fault_oob+0x1b0 in /src/kernels/cuda/fault_oob.cu:21
LOG
    ;;
*) n=0 ;;
esac
echo "========= ERROR SUMMARY: $((n + api)) errors" >>"$log"
[ $n = 1 ] && echo "========= ERROR SUMMARY: 0 errors were not printed. Use --print-limit option to adjust the number of printed errors" >>"$log"
exit $rc
SH
    chmod +x "$T/compute-sanitizer"
    COMPUTE_SANITIZER="$T/compute-sanitizer" "$H" run --backend sim --width 32 --sanitize memcheck --jobs 2 \
        --kernel 'cuda/sgemm_naive,cuda/fault_oob' --case 'edge_1x2x3,edge_15x16x17' --json "$T/san.jsonl" --quiet >"$T/out" 2>&1
    json_check "... every case gets its row, and the tool's findings are one more" "$T/san.jsonl" \
        "[r['verdict'] for r in find(kernel='sgemm_naive')] == ['PASS'] * 2 and any(r['case'] == 'memcheck' and 'ERROR SUMMARY: 1 errors' in r['why'] for r in find(kernel='fault_oob'))"
    json_check "... with the tool's first report: what, where and which thread" "$T/san.jsonl" \
        "[('first: Invalid __global__ write of size 4 bytes; at fault_oob+0x1b0 in /src/kernels/cuda/fault_oob.cu:21; by thread (3,0,0) in block (0,0,0); Address 0x7f00a0001040 is out of bounds;' in r['why'], 'nearest allocation' in r['why']) for r in find(kernel='fault_oob', case='memcheck')] == [(True, False)]"

    echo "integration: runaway processes (a slow compile, SIGKILL during a hang, SIGTERM to --devices all)"
    mkdir -p "$T/slowc"
    mkfifo "$T/slowc/slow.h"
    { echo '#include "slow.h" /* a FIFO nobody writes: the compiler waits forever */'; cat tests/data/user_kernel/my_reduce.cu; } >"$T/slowc/my_reduce.cu"
    cp tests/data/user_kernel/user.manifest "$T/slowc/"
    t0=$(date +%s)
    XDG_CACHE_HOME="$T/cache" timeout 100 "$H" run --backend sim --width 32 --only-manifest --manifest "$T/slowc/user.manifest" \
        --case sum_1 --timeout 3 --json "$T/slowc.jsonl" --quiet >"$T/out" 2>&1
    took=$(($(date +%s) - t0))
    if [ $took -lt 30 ]; then ok "a compile that hangs obeys --timeout 3 (${took} s)"; else bad "a compile that hangs took ${took} s under --timeout 3" "$T/out"; fi
    json_check "... as a timeout row" "$T/slowc.jsonl" "len(recs) == 1 and 'timeout' in recs[0]['classes'] and recs[0]['verdict'] == 'ERROR'"
    sleep 1
    if pgrep -f "$T/slowc" >"$T/pg"; then bad "no compiler left after the run" "$T/pg"; else ok "no compiler left after the run"; fi

    printf '[hang]\nop = sgemm\nlang = cuda\nsource = %s\nentry = fault_timeout\nblock = 16 16 1\ngrid = N/16 M/16 1\n' \
        "$(pwd)/kernels/cuda/fault_timeout.cu" >"$T/hang.manifest"
    "$H" run --backend sim --width 32 --only-manifest --manifest "$T/hang.manifest" --case edge_3x5x7 --timeout 300 \
        --json "$T/k9.jsonl" >"$T/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do [ "$(pgrep -f "$T/k9.jsonl" | wc -l)" -ge 2 ] && break; sleep 0.1; done
    sleep 1
    kill -KILL $pid
    wait $pid 2>/dev/null
    for _ in $(seq 1 50); do pgrep -f "$T/k9.jsonl" >/dev/null || break; sleep 0.1; done
    if pgrep -f "$T/k9.jsonl" >"$T/pg"; then bad "SIGKILL during a hang leaves no process after 5 s" "$T/pg"; else ok "SIGKILL during a hang leaves no process after 5 s"; fi

    mkdir -p "$T/stmp"
    cp cases/quick.cases "$T/dall.cases"
    ls -d /tmp/hb-shards-* 2>/dev/null | sort >"$T/shards.before"
    TMPDIR="$T/stmp" "$H" run --backend sim --devices all --cases "$T/dall.cases" --json "$T/dall.jsonl" --junit "$T/dall.xml" \
        >"$T/out" 2>&1 &
    pid=$!
    # Until a shard has a result of its own (under load that can take many seconds).
    for _ in $(seq 1 600); do grep -qs '"record":"result"' "$T/stmp"/hb-shards-*/shard*.jsonl && break; sleep 0.1; done
    kill -TERM $pid
    wait $pid
    rc=$?
    sleep 1
    if [ $rc = 143 ]; then ok "SIGTERM to --devices all exits 143"; else bad "SIGTERM to --devices all: exit $rc, want 143" "$T/out"; fi
    json_check "... having written its reports" "$T/dall.jsonl" "len(recs) > 0"
    if xmllint --noout "$T/dall.xml" 2>"$T/xml"; then ok "... valid JUnit"; else bad "... valid JUnit" "$T/xml"; fi
    if pgrep -f "$T/dall.cases" >"$T/pg"; then bad "... no shard left running" "$T/pg"; else ok "... no shard left running"; fi
    ls -d /tmp/hb-shards-* 2>/dev/null | sort | comm -13 "$T/shards.before" - >"$T/ls"
    ls -A "$T/stmp" >>"$T/ls"
    if [ ! -s "$T/ls" ]; then ok "... its temporary folder removed"; else bad "... its temporary folder removed" "$T/ls"; fi

    echo '{"stale": "a previous run"}' >"$T/stale.jsonl"
    "$H" run --backend sim --tier standard --json "$T/stale.jsonl" --junit "$T/stale.xml" >"$T/out" 2>&1 &
    pid=$!
    sleep 1
    kill -TERM $pid
    wait $pid
    rc=$?
    if [ $rc = 143 ] && grep -q 'interrupted by signal 15' "$T/out"; then ok "SIGTERM in the first seconds: exit 143 with a message"; else bad "SIGTERM in the first seconds: exit $rc" "$T/out"; fi
    if ! grep -q 'a previous run' "$T/stale.jsonl" && tail -1 "$T/stale.jsonl" | grep -q '"interrupted":true' && xmllint --noout "$T/stale.xml" 2>/dev/null; then
        ok "... the previous run's reports do not look current"
    else
        bad "... the previous run's reports do not look current" "$T/stale.jsonl"
    fi

    echo "integration: bounded inputs and names (issue 17.13)"
    printf 'include /dev/zero\n' >"$T/zero.cases"
    expect_exit 2 "a case include of /dev/zero is an error" -- bash -c "ulimit -v 4000000; timeout 20 $H run --backend sim --cases $T/zero.cases"
    if grep -q 'zero.cases:1: include /dev/zero: not a regular file' "$T/out"; then ok "... refused as not a regular file, not read"; else bad "... refused as not a regular file, not read" "$T/out"; fi
    printf '[k]\nop = sgemm\nlang = cuda\nsource = /dev/zero\nentry = k\nblock = 16 16\ngrid = N/16 M/16\n' >"$T/zero.manifest"
    expect_exit 2 "source = /dev/zero is an error at load" -- timeout 20 "$H" run --backend sim --only-manifest --manifest "$T/zero.manifest"
    if grep -q 'not a source file' "$T/out"; then ok "... saying it is not a source file"; else bad "... saying it is not a source file" "$T/out"; fi
    sed "s|/dev/zero|$T|" "$T/zero.manifest" >"$T/folder.manifest"
    expect_exit 2 "a folder as source is an error at load" -- "$H" run --backend sim --only-manifest --manifest "$T/folder.manifest"
    if grep -q 'is a folder' "$T/out"; then ok "... saying it is a folder"; else bad "... saying it is a folder" "$T/out"; fi
    long=k_$(printf 'x%.0s' $(seq 1 70))
    sed "s|^\[my_reduce\]|[$long]|; s|^source .*|source = $(pwd)/tests/data/user_kernel/my_reduce.cu|" tests/data/user_kernel/user.manifest >"$T/long.manifest"
    expect_exit 2 "a kernel name over 63 bytes is an error, not cut" -- "$H" run --backend sim --only-manifest --manifest "$T/long.manifest"
    printf '[sgemm_naive]\nop = sgemm\nlang = cuda\nsource = %s\nentry = sgemm_naive\nblock = 16 16 1\ngrid = N/16 M/16 1\n' \
        "$(pwd)/tests/data/hostile/fork_sgemm.cu" >"$T/dup.manifest"
    expect_exit 2 "a user kernel named like a shipped one does not merge into its rows" -- "$H" run --backend sim --manifest "$T/dup.manifest"
    if grep -q 'has the name of the kernel at' "$T/out"; then ok "... the error names both"; else bad "... the error names both" "$T/out"; fi
    expect_exit 2 "--width 7 (no such width)" -- "$H" run --backend sim --width 7
    expect_exit 2 "--device 15 (no such device)" -- "$H" run --backend sim --device 15
    expect_exit 2 "--shard 1/99999999999" -- "$H" run --backend sim --shard 1/99999999999
fi
