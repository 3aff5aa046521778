#!/usr/bin/env bash
# integration.sh: runs the real harness binary on the real emulator and lavapipe and reads
# its exit codes, messages, JSON lines and JUnit. Each check can fail; a backend that is not
# built or has no device here is skipped by name, never passed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
H=$BUILD/harness
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0 failed=0 skipped=0

ok()   { passed=$((passed + 1)); echo "  ok      $1"; }
bad()  { failed=$((failed + 1)); echo "  FAILED  $1"; [ -n "${2:-}" ] && sed 's/^/          /' "$2" | tail -20; }
skip() { skipped=$((skipped + 1)); echo "  skip    $1: $2"; }

# expect_exit CODE NAME -- command...: the command's exit status must be CODE.
expect_exit() {
    local want=$1 name=$2; shift 3
    "$@" >"$T/out" 2>&1
    local got=$?
    if [ "$got" = "$want" ]; then ok "$name (exit $got)"; else bad "$name: exit $got, want $want" "$T/out"; fi
}

# jq-free JSON check: python3 evaluates an expression over the records of a JSON lines file.
json_check() {
    local name=$1 file=$2 expr=$3
    if python3 - "$file" "$expr" >"$T/py" 2>&1 <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
def find(**kw):
    return [r for r in recs if all(r.get(k) == v for k, v in kw.items())]
ok = eval(sys.argv[2])
if not ok:
    for r in recs[:40]:
        print(r["backend"], r["lang"] + "/" + r["kernel"], "w%d" % r["width"], r["case"], r["verdict"], r["classes"], r["why"])
sys.exit(0 if ok else 1)
PY
    then ok "$name"; else bad "$name" "$T/py"; fi
}

device_count() { "$H" list 2>/dev/null | awk -v b="$1" '$1 == b && /device\(s\)/ { for (i = 1; i <= NF; i++) if ($i ~ /^device\(s\)/) print $(i-1) }'; }

echo "integration: command line and bad input"
expect_exit 0 "--help" -- "$H" --help
expect_exit 2 "no command" -- "$H"
expect_exit 2 "unknown command" -- "$H" frobnicate
expect_exit 2 "unknown option" -- "$H" run --frobnicate
expect_exit 2 "unknown backend" -- "$H" run --backend nosuch
expect_exit 2 "unknown tier" -- "$H" run --tier weekly
expect_exit 2 "bad width" -- "$H" run --width banana

printf 'sgemm ok M=1 N=1 K=1\n# fine so far\nsgemm broken M=1 N=1\n' >"$T/bad.cases"
expect_exit 2 "malformed case file" -- "$H" run --backend sim --cases "$T/bad.cases"
if grep -q "$T/bad.cases:3: sgemm needs M=, N= and K=" "$T/out"; then ok "case error names file:line"; else bad "case error names file:line" "$T/out"; fi
printf 'sgemm ok M=1 N=1 K=1 seed=12x\n' >"$T/bad2.cases"
expect_exit 2 "bad seed" -- "$H" run --backend sim --cases "$T/bad2.cases"
printf 'sgemm ok M=1 N=1 K="1\n' >"$T/bad3.cases"
expect_exit 2 "unterminated quote" -- "$H" run --backend sim --cases "$T/bad3.cases"
head -c 3000 /dev/urandom >"$T/binary.cases"
expect_exit 2 "binary junk as a case file" -- "$H" run --backend sim --cases "$T/binary.cases"
expect_exit 2 "missing case file" -- "$H" run --backend sim --cases "$T/none.cases"

printf '[k]\nop = sgemm\nlang = cuda\nsource = nowhere.cu\nentry = k\nblock = 16 16\ngrid = N/16 M/16\n' >"$T/bad.manifest"
expect_exit 2 "manifest with an unreadable source" -- "$H" run --backend sim --manifest "$T/bad.manifest"
if grep -q "$T/bad.manifest:4: kernel \[k\]: source" "$T/out"; then ok "manifest error names file:line"; else bad "manifest error names file:line" "$T/out"; fi
printf '[k]\nop = sgemm\nwarp = 32\n' >"$T/bad2.manifest"
expect_exit 2 "manifest with an unknown key" -- "$H" run --backend sim --manifest "$T/bad2.manifest"

echo "integration: backends without a device exit 3"
for b in cuda hip; do
    n=$(device_count "$b")
    if [ -z "$n" ]; then skip "$b without a device" "not built here"; continue; fi
    if [ "$n" != 0 ]; then skip "$b without a device" "this machine has $n $b device(s)"; continue; fi
    expect_exit 3 "$b asked for by name with no device" -- "$H" run --backend "$b"
    if grep -qi "no usable device" "$T/out"; then ok "$b says why"; else bad "$b says why" "$T/out"; fi
done

if [ -z "$(device_count sim)" ]; then
    skip "emulator checks" "sim backend not built"
else
    echo "integration: the emulator catches the wavefront bugs"
    "$H" run --backend sim --width 64 --kernel 'hip/reduce_*' --case 'big_1000003' \
        --json "$T/w64.jsonl" --junit "$T/w64.xml" --quiet >"$T/out" 2>&1
    rc=$?
    if [ $rc = 0 ]; then ok "width 64 run: XFAIL is acceptable (exit 0)"; else bad "width 64 run exit $rc" "$T/out"; fi
    json_check "hip reduce_warp32 at 64 is XFAIL with its size" "$T/w64.jsonl" \
        'any(r["verdict"] == "XFAIL" and r["bad"] > 0 and r["total_rel_err"] > 0 for r in find(kernel="reduce_warp32"))'
    json_check "hip reduce_generic at 64 passes" "$T/w64.jsonl" \
        'all(r["verdict"] == "PASS" for r in find(kernel="reduce_generic")) and find(kernel="reduce_generic")'
    if xmllint --noout "$T/w64.xml" 2>"$T/xml"; then ok "JUnit is valid XML"; else bad "JUnit is valid XML" "$T/xml"; fi

    "$H" run --backend sim --width 8,32 --kernel 'cuda/reduce_*' --case 'sum_4097' --json "$T/cu.jsonl" --quiet >"$T/out" 2>&1
    json_check "cuda reduce_warp32 caught at width 8, right at 32" "$T/cu.jsonl" \
        'find(kernel="reduce_warp32", width=8)[0]["verdict"] == "XFAIL" and find(kernel="reduce_warp32", width=32)[0]["verdict"] == "PASS"'
    json_check "cuda reduce_wave64 caught at width 32" "$T/cu.jsonl" \
        'find(kernel="reduce_wave64", width=32)[0]["verdict"] == "XFAIL"'

    echo "integration: faults are contained and classified"
    "$H" run --backend sim --width 32 --kernel 'cuda/fault_*' --case 'edge_15x16x17' --timeout 10 \
        --json "$T/faults.jsonl" --quiet >"$T/out" 2>&1
    "$H" run --backend sim --width 32 --kernel 'cuda/fault_race' --case 'sum_4097' --schedule random:7 \
        --json "$T/race.jsonl" --quiet >>"$T/out" 2>&1
    for k in oob unwritten timeout crash; do
        json_check "fault_$k reported as $k" "$T/faults.jsonl" \
            "any(r['verdict'] == 'XFAIL' and '$k' in r['classes'] for r in find(kernel='fault_$k'))"
    done
    "$H" run --backend sim --width 32 --kernel 'cuda/fault_stride' --case 'stride_17x31x9' --json "$T/stride.jsonl" --quiet >>"$T/out" 2>&1
    json_check "fault_stride (C stored packed, ignoring ldc) reported as oob" "$T/stride.jsonl" \
        "any(r['verdict'] == 'XFAIL' and 'oob' in r['classes'] for r in find(kernel='fault_stride'))"
    json_check "fault_race reported as nondeterministic under a random schedule" "$T/race.jsonl" \
        "any(r['verdict'] == 'XFAIL' and 'nondeterministic' in r['classes'] for r in find(kernel='fault_race'))"

    echo "integration: a known-bad kernel that passes is an XPASS and fails the run"
    src=$(pwd)/kernels/cuda/reduce_generic.cu
    printf '[generic_claimed_bad]\nop = reduce\nlang = cuda\nsource = %s\nentry = reduce_generic\nblock = 256\ngrid = n/1024\nchunk = 1024\nexpect = wrong\n' "$src" >"$T/xpass.manifest"
    expect_exit 1 "XPASS fails the run" -- "$H" run --backend sim --width 32 --only-manifest --manifest "$T/xpass.manifest" --case 'sum_25*' --json "$T/xpass.jsonl"
    json_check "XPASS row names the kernel" "$T/xpass.jsonl" 'any(r["verdict"] == "XPASS" for r in find(kernel="generic_claimed_bad"))'

    echo "integration: an interrupted run keeps valid reports"
    "$H" run --backend sim --width 32 --kernel 'cuda/sgemm_naive' --junit "$T/int.xml" --json "$T/int.jsonl" >"$T/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do [ -s "$T/int.jsonl" ] && break; sleep 0.1; done
    kill -TERM $pid; wait $pid
    if xmllint --noout "$T/int.xml" 2>"$T/xml"; then ok "JUnit valid after SIGTERM"; else bad "JUnit valid after SIGTERM" "$T/xml"; fi
    json_check "JSON lines complete after SIGTERM" "$T/int.jsonl" 'len(recs) > 0'
fi

if [ -z "$(device_count vulkan)" ] || [ "$(device_count vulkan)" = 0 ]; then
    skip "lavapipe checks" "no Vulkan device"
else
    echo "integration: lavapipe catches the width bugs, validation on"
    HB_VK_VALIDATION=1 "$H" run --backend vulkan --width 8 --kernel 'glsl/reduce_*' --case 'sum_4097' \
        --json "$T/vk.jsonl" --quiet >"$T/out" 2>&1
    json_check "glsl reduce_warp32 caught at width 8" "$T/vk.jsonl" 'find(kernel="reduce_warp32")[0]["verdict"] == "XFAIL"'
    json_check "glsl reduce_generic passes at width 8" "$T/vk.jsonl" 'find(kernel="reduce_generic")[0]["verdict"] == "PASS"'
fi

if [ -z "$(device_count sim)" ]; then
    skip "user kernel checks" "sim backend not built"
else
    echo "integration: a user's own kernel is compiled at run time, cached, and a broken one SKIPs"
    U=tests/data/user_kernel
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$U/user.manifest" \
        --case 'sum_*' --json "$T/user.jsonl" --quiet >"$T/out" 2>&1
    json_check "user manifest compiled at run time and passes on sim" "$T/user.jsonl" \
        'len(recs) > 0 and all(r["verdict"] == "PASS" for r in find(kernel="my_reduce"))'
    so=$(ls "$T"/cache/gpu-harness/sim/*.so 2>/dev/null)
    if [ -n "$so" ] && [ "$so" -ot "$T/user.jsonl" ]; then ok "run-time build cached in \$XDG_CACHE_HOME"; else bad "run-time build cached in \$XDG_CACHE_HOME" "$T/out"; fi
    mkdir -p "$T/broken"
    cp "$U/user.manifest" "$T/broken/"
    sed 's/float s = 0.0f;/float s = not_declared;/' "$U/my_reduce.cu" >"$T/broken/my_reduce.cu"
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$T/broken/user.manifest" \
        --case 'sum_*' --json "$T/broken.jsonl" --quiet >"$T/out" 2>&1
    json_check "a user kernel that does not compile SKIPs with the compiler's error" "$T/broken.jsonl" \
        'any(r["verdict"] == "SKIP" and "my_reduce.cu:" in r["why"] and "not_declared" in r["why"] for r in recs)'
fi

echo "integration: the HIP backend loads, says its platform, and has no device here"
if [ ! -e "$BUILD/backends/hb_hip.so" ]; then
    skip "HIP backend checks" "hb_hip.so not built"
elif ! cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iharness tests/backend_probe.c -o "$T/probe" -ldl 2>"$T/out"; then
    bad "tests/backend_probe.c builds" "$T/out"
else
    "$T/probe" "$BUILD/backends/hb_hip.so" >"$T/probe.out" 2>&1
    # make records the platform it built for (backend.mk); AMD is reported as no platform
    want=$(cat "$BUILD/backends/hip-platform.stamp" 2>/dev/null)
    [ "$want" = amd ] && want='(none)'
    if grep -qx 'abi=2' "$T/probe.out" && grep -qxF "platform=$want" "$T/probe.out"; then
        ok "hb_hip.so loads by dlopen and reports platform $want"
    else
        bad "hb_hip.so loads by dlopen and reports platform $want" "$T/probe.out"
    fi
    if ! grep -qx 'devices=0' "$T/probe.out"; then
        skip "hip open() without a device" "this machine has a HIP device"
    elif grep -qx "open=3" "$T/probe.out" && grep -q '^why=no HIP device' "$T/probe.out"; then
        ok "hip open() without a device is HB_NO_DEVICE, with the reason"
    else
        bad "hip open() without a device is HB_NO_DEVICE, with the reason" "$T/probe.out"
    fi
fi

if [ -n "$(device_count sim)" ]; then
    echo "integration: a user's HIP kernel compiles at run time; a HIP crash canary is contained"
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32,64 --only-manifest \
        --manifest tests/data/user_kernel_hip/user.manifest --json "$T/uhip.jsonl" --quiet >"$T/out" 2>&1
    json_check "my_reduce_hip passes at 32 and 64" "$T/uhip.jsonl" \
        "all(find(kernel='my_reduce_hip', width=w) and all(r['verdict'] == 'PASS' for r in find(kernel='my_reduce_hip', width=w)) for w in (32, 64))"
    json_check "crash_null is caught as a crash, and the run goes on" "$T/uhip.jsonl" \
        "all(r['verdict'] == 'XFAIL' and ('crash' in r['classes'] or 'api' in r['classes']) for r in find(kernel='crash_null')) and len(find(kernel='crash_null')) >= 2"
fi

if [ -n "$(device_count sim)" ]; then
    echo "integration: HIP canaries for the warp-size bug patterns"
    "$H" run --backend sim --width 32,64 --kernel 'hip/canary_*' --case 'sum_4097' --json "$T/canary.jsonl" --quiet >"$T/out" 2>&1
    for k in canary_ballot32 canary_butterfly16 canary_lane31; do
        json_check "$k caught at 64, right at 32" "$T/canary.jsonl" \
            "find(kernel='$k', width=64)[0]['verdict'] == 'XFAIL' and find(kernel='$k', width=32)[0]['verdict'] == 'PASS'"
    done
    json_check "canary_wave64_on32 caught at 32, right at 64" "$T/canary.jsonl" \
        "find(kernel='canary_wave64_on32', width=32)[0]['verdict'] == 'XFAIL' and find(kernel='canary_wave64_on32', width=64)[0]['verdict'] == 'PASS'"

    echo "integration: shards merge into the unsharded result; baselines gate changes"
    "$H" run --backend sim --width 32 --kernel 'cuda/reduce_*' --json "$T/full.jsonl" --quiet >"$T/out" 2>&1
    "$H" run --backend sim --width 32 --kernel 'cuda/reduce_*' --shard 0/2 --json "$T/s0.jsonl" --quiet >>"$T/out" 2>&1
    "$H" run --backend sim --width 32 --kernel 'cuda/reduce_*' --shard 1/2 --json "$T/s1.jsonl" --quiet >>"$T/out" 2>&1
    expect_exit 0 "merge of two shards" -- "$H" merge --json "$T/merged.jsonl" --junit "$T/merged.xml" --html "$T/merged.html" "$T/s0.jsonl" "$T/s1.jsonl"
    if [ "$(wc -l <"$T/merged.jsonl")" = "$(wc -l <"$T/full.jsonl")" ] && [ -s "$T/full.jsonl" ]; then
        ok "merged shards hold as many results as one run"
    else
        bad "merged shards hold as many results as one run" "$T/out"
    fi
    if xmllint --noout "$T/merged.xml" 2>"$T/xml"; then ok "merged JUnit is valid XML"; else bad "merged JUnit is valid XML" "$T/xml"; fi
    if grep -q '<svg' "$T/merged.html"; then ok "HTML report draws the failing cases"; else bad "HTML report draws the failing cases" "$T/merged.html"; fi
    "$H" run --backend sim --width 32 --kernel 'cuda/reduce_generic' --record "$T/base.jsonl" --quiet >"$T/out" 2>&1
    expect_exit 0 "compare with an identical baseline" -- "$H" run --backend sim --width 32 --kernel 'cuda/reduce_generic' --compare "$T/base.jsonl" --quiet
    sed 's/"output_hash":"[0-9a-f]*"/"output_hash":"0123456789abcdef"/' "$T/base.jsonl" >"$T/base_bits.jsonl"
    expect_exit 0 "changed bits are reported" -- "$H" run --backend sim --width 32 --kernel 'cuda/reduce_generic' --compare "$T/base_bits.jsonl" --quiet
    expect_exit 1 "changed bits fail with --fail-on-bit-change" -- "$H" run --backend sim --width 32 --kernel 'cuda/reduce_generic' --compare "$T/base_bits.jsonl" --fail-on-bit-change --quiet
fi

if [ -n "$(device_count vulkan)" ] && [ "$(device_count vulkan)" != 0 ]; then
    echo "integration: lavapipe canaries and the known-bug list"
    HB_VK_VALIDATION=1 "$H" run --backend vulkan --width 8 --kernel 'glsl/fault_*' --case 'edge_1[57]*' \
        --json "$T/vkf.jsonl" --quiet >"$T/out" 2>&1
    json_check "glsl fault_sgemm_oob reported as oob" "$T/vkf.jsonl" \
        "any(r['verdict'] == 'XFAIL' and 'oob' in r['classes'] for r in find(kernel='fault_sgemm_oob'))"
    json_check "glsl fault_sgemm_unwritten reported as unwritten" "$T/vkf.jsonl" \
        "any(r['verdict'] == 'XFAIL' and 'unwritten' in r['classes'] for r in find(kernel='fault_sgemm_unwritten'))"
    "$H" run --backend vulkan --width 8 --kernel 'glsl/sgemm_naive' --case 'long_2x3x65537' --json "$T/known.jsonl" --quiet >"$T/out" 2>&1
    json_check "llvmpipe's loop cap is a known bug (XFAIL with its reason)" "$T/known.jsonl" \
        "find(case='long_2x3x65537')[0]['verdict'] == 'XFAIL' and 'known bug' in find(case='long_2x3x65537')[0]['why']"
fi

if [ -n "$(device_count sim)" ]; then
    echo "integration: bounds that follow the data (compare.c)"
    "$H" run --backend sim --width 32 --kernel 'cuda/sgemm_tiled' --case 'long_*_17x16x65537' \
        --json "$T/bound.jsonl" --quiet >"$T/out" 2>&1
    json_check "long uniform K is judged near 21, not max(16, 2 sqrt K) = 512" "$T/bound.jsonl" \
        "[r['verdict'] for r in find(case='long_uniform_17x16x65537')] == ['PASS'] and find(case='long_uniform_17x16x65537')[0]['threshold'] < 30"
    json_check "wideint long K is exact and passes bit for bit" "$T/bound.jsonl" \
        "[(r['verdict'], r['max_ratio'], r['max_ulp']) for r in find(case='long_wideint_17x16x65537')] == [('PASS', 0, 0)]"
fi

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
# compute-sanitizer's command line (--tool T --log-file L --print-limit N EXE ARGS...), its
# summary line in the log: one error for fault_oob, none otherwise.
log=$4
shift 6
"$@"
rc=$?
case "$*" in *:cuda/fault_oob:*) n=1 ;; *) n=0 ;; esac
echo "========= ERROR SUMMARY: $n errors" >"$log"
exit $rc
SH
    chmod +x "$T/compute-sanitizer"
    COMPUTE_SANITIZER="$T/compute-sanitizer" "$H" run --backend sim --width 32 --sanitize memcheck --jobs 2 \
        --kernel 'cuda/sgemm_naive,cuda/fault_oob' --case 'edge_1x2x3,edge_15x16x17' --json "$T/san.jsonl" --quiet >"$T/out" 2>&1
    json_check "... every case gets its row, and the tool's findings are one more" "$T/san.jsonl" \
        "[r['verdict'] for r in find(kernel='sgemm_naive')] == ['PASS'] * 2 and any(r['case'] == 'memcheck' and 'ERROR SUMMARY: 1 errors' in r['why'] for r in find(kernel='fault_oob'))"

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
    for _ in $(seq 1 100); do [ -s "$T/stmp"/hb-shards-*/shard0.jsonl ] 2>/dev/null && break; sleep 0.1; done
    sleep 1
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
    if ! grep -q stale "$T/stale.jsonl" && xmllint --noout "$T/stale.xml" 2>/dev/null; then
        ok "... the previous run's reports do not look current"
    else
        bad "... the previous run's reports do not look current" "$T/stale.jsonl"
    fi

    echo "integration: bounded inputs and names (issue 17.13)"
    printf 'include /dev/zero\n' >"$T/zero.cases"
    expect_exit 2 "a case include of /dev/zero is an error" -- bash -c "ulimit -v 4000000; timeout 20 $H run --backend sim --cases $T/zero.cases"
    if grep -q '/dev/zero:1: holds a NUL byte' "$T/out"; then ok "... at its first NUL, not out of memory"; else bad "... at its first NUL, not out of memory" "$T/out"; fi
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

echo
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
