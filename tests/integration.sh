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
# Result records only: schema 2 files open with a run header and close with an end record.
recs = [r for r in (json.loads(l) for l in open(sys.argv[1], encoding="utf-8")) if r.get("record", "result") == "result"]
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
    # The header record comes first: wait for a result before interrupting.
    for _ in $(seq 1 100); do grep -q '"record":"result"' "$T/int.jsonl" 2>/dev/null && break; sleep 0.1; done
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
    echo "integration: a user's own kernel is compiled at run time, cached, and a broken one is an ERROR"
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
    json_check "a user kernel that does not compile is an ERROR with the compiler's error" "$T/broken.jsonl" \
        'any(r["verdict"] == "ERROR" and "my_reduce.cu:" in r["why"] and "not_declared" in r["why"] for r in recs)'
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
    if grep -q 'id="overview"' "$T/merged.html" && grep -q '<details id="XFAIL">' "$T/merged.html"; then ok "HTML report: overview, expected failures folded"; else bad "HTML report: overview, expected failures folded" "$T/merged.html"; fi
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

if [ -n "$(device_count sim)" ]; then
    echo "integration: nothing passes by not running; empty grids are not launched"
    expect_exit 4 "a run in which every kernel skipped exits 4" -- "$H" run --backend sim --width 32 --kernel cuda/fault_warpsync --quiet
    expect_exit 0 "--allow-empty accepts it" -- "$H" run --backend sim --width 32 --kernel cuda/fault_warpsync --quiet --allow-empty
    expect_exit 4 "a run that matched nothing exits 4" -- "$H" run --backend sim --width 32 --case no_such_case --quiet
    "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case 'm0_*,n0_*' --json "$T/empty.jsonl" --quiet >"$T/out" 2>&1
    json_check "M = 0 and N = 0 are not launched, and pass with C untouched" "$T/empty.jsonl" \
        'len(recs) == 2 and all(r["verdict"] == "PASS" and r["threads"] == 0 and "not launched" in r["why"] for r in recs)'
fi

if [ -z "$(device_count sim)" ]; then
    skip "emulator access, schedule, port and build checks" "sim backend not built"
else
    echo "integration: the emulator sees every access (driven through backend.h as the core will)"
    S=tests/data/sim
    B=$(cd "$BUILD" && pwd)
    cc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -Iharness "$S/drive.c" -o "$T/drive" -ldl -lm
    # drive [options] source entry: one SGEMM launch, M=17 N=19 K=23 unless -m says otherwise
    drive() { local n=$#; XDG_CACHE_HOME="$T/cache" "$T/drive" "${@:1:n-2}" "$B" "$(pwd)/${@:n-1:1}" "${@:n}" >"$T/out" 2>&1; }
    has() { if grep -qF -- "$2" "$T/out"; then ok "$1"; else bad "$1" "$T/out"; fi; }
    drive "$S/oob.cu" oob_read_write
    has "reads past A are seen, first at A+1564 (row M)" "reads: count=437 arg=0 offset=1564 block=0,1,0 thread=0,1,0"
    has "writes of the guard NaN past C are seen, first at C+1292" "writes: count=19 arg=2 offset=1292 block=0,1,0 thread=0,1,0"
    drive "$S/oob.cu" oob_far8k
    has "a write 8 KiB past C is seen" "writes: count=1 arg=2 offset=9484 block=1,1,0 thread=2,0,0"
    drive "$S/oob.cu" oob_far64k
    has "a write 64 KiB past C is seen and harmless" "writes: count=1 arg=2 offset=66828"
    drive "$S/oob.cu" oob_read_only
    has "a read-only bug: reads seen" "reads: count=19 arg=0 offset=1564"
    has "a read-only bug: no write" "writes: count=0 arg=-1"
    drive "$S/oob.cu" misaligned_vec
    has "a misaligned float4 load stops the launch, named" "launch: rc=1 msg=launch: misaligned 16-byte read at buffer argument 0, byte offset 4"
    for k in sgemm_naive sgemm_tiled sgemm_coarsened; do
        drive -m 33,35,37 -g 3,3 kernels/cuda/$k.cu $k
        has "shipped $k: no access outside its data, right" "reads: count=0 arg=-1"
    done
    drive -m 130,129,20 -g 2,2 kernels/cuda/sgemm_optimized.cu sgemm_optimized
    has "shipped sgemm_optimized: no access outside its data" "writes: count=0 arg=-1"
    has "shipped sgemm_optimized runs the binary make built, named with its source hash" "(built by make); source $(pwd)/kernels/cuda/sgemm_optimized.cu fnv1a64 "

    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$S/oob.manifest" \
        --case 'edge_15x16x17' --json "$T/oobh.jsonl" --quiet >"$T/out" 2>&1
    json_check "read past A, guard NaN written past C: FAIL oob+oob-read, access named" "$T/oobh.jsonl" \
        'any(r["verdict"] == "FAIL" and {"oob", "oob-read"} <= set(r["classes"].split("+")) and "argument 0 byte 1020" in r["why"] for r in find(kernel="oob_read_write"))'
    for k in oob_far8k oob_far64k; do
        json_check "$k: a write past the guard band is FAIL oob" "$T/oobh.jsonl" \
            "any(r['verdict'] == 'FAIL' and 'oob' in r['classes'].split('+') for r in find(kernel='$k'))"
    done
    if grep -q 'guard bands 4 KiB each side (on GPUs a write further out is not seen: --guard-kib)' "$T/out"; then
        ok "the run says how far the guard bands reach"
    else
        bad "the run says how far the guard bands reach" "$T/out"
    fi
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$S/oob.manifest" \
        --kernel oob_far8k --case 'edge_15x16x17' --guard-kib 16 --json "$T/band.jsonl" --quiet >"$T/out" 2>&1
    if head -1 "$T/band.jsonl" | grep -q '"guard_bytes":16384' && grep -q 'rerun: .* --guard-kib 16$' "$T/out"; then
        ok "--guard-kib 16: the band is in the report header and the failure's rerun command"
    else
        bad "--guard-kib 16: the band is in the report header and the failure's rerun command" "$T/out"
    fi
    expect_exit 2 "--guard-kib 6 (not whole pages)" -- "$H" run --backend sim --guard-kib 6
    json_check "a read-only bug is FAIL oob-read alone" "$T/oobh.jsonl" \
        'any(r["verdict"] == "FAIL" and r["classes"].split("+") == ["oob-read"] for r in find(kernel="oob_read_only"))'
    json_check "each row names the binary that ran, with its source hash" "$T/oobh.jsonl" \
        'all("fnv1a64" in r.get("binary", "") for r in recs)'

    echo "integration: declared signatures, templates and dynamic shared memory on the emulator"
    drive -p "M N K alpha A B beta C" -b 256,1 -g 2,2 -m 130,129,20 "$S/template.cu" 'sgemm2DBlocktiling<128, 128, 8, 8, 8>'
    has "a template-id entry with args M N K alpha A B beta C is right" "result: right"
    has "its binary was built at run time" "(built at run time); source $(pwd)/$S/template.cu fnv1a64"
    drive -b 256,1 -g 2,2 -m 130,129,20 -p "A B C M N K" "$S/template.cu" 'sgemm2DBlocktiling<128, 128, 8, 8, 8>'
    has "args that do not match the kernel's parameters are refused at load" "parameters are (IIIFPPFP), the manifest's args declare (PPPIII)"
    drive -s 2048 "$S/dynshared.cu" dyn_tiled
    has "extern __shared__ arrays share shared_bytes of dynamic shared memory" "result: right"
    drive "$S/dynshared.cu" dyn_tiled
    has "dynamic shared memory without shared_bytes is refused, named" "declares dynamic shared memory (extern __shared__"

    echo "integration: the default (mixed) schedule catches the brief's warp-synchronous bug"
    "$H" run --backend sim --width 32,64 --only-manifest --manifest "$S/schedule.manifest" --json "$T/mixed.jsonl" --quiet >"$T/out" 2>&1
    json_check "tid < 64 volatile tree at width 32: nondeterministic by default" "$T/mixed.jsonl" \
        'sum(r["verdict"] == "FAIL" and "nondeterministic" in r["classes"] for r in find(width=32)) >= 8'
    json_check "the same kernel passes at width 64" "$T/mixed.jsonl" \
        'find(width=64) and all(r["verdict"] == "PASS" for r in find(width=64))'
    HB_SIM_SCHEDULE=mixed:7 "$H" run --backend sim --width 32 --only-manifest --manifest "$S/schedule.manifest" --json "$T/m7a.jsonl" --quiet >"$T/out" 2>&1
    HB_SIM_SCHEDULE=mixed:7 "$H" run --backend sim --width 32 --only-manifest --manifest "$S/schedule.manifest" --json "$T/m7b.jsonl" --quiet >>"$T/out" 2>&1
    if [ -s "$T/m7a.jsonl" ] && diff <(cut -d, -f1-12 "$T/m7a.jsonl" | grep -o '"verdict":"[A-Z]*"') \
            <(cut -d, -f1-12 "$T/m7b.jsonl" | grep -o '"verdict":"[A-Z]*"') >/dev/null; then
        ok "mixed:SEED reproduces its verdicts"
    else
        bad "mixed:SEED reproduces its verdicts" "$T/out"
    fi
    HB_SIM_SCHEDULE=mixed:x drive "$S/oob.cu" oob_far8k
    has "a malformed schedule is refused, with the forms it takes" "HB_SIM_SCHEDULE=mixed:x: expected mixed:SEED, lockstep or random:SEED"
    "$H" run --backend sim --width 4,8,16,32,64 --kernel 'cuda/sgemm_*' --case 'edge_15x16x17' \
        --json "$T/shipped.jsonl" --quiet >"$T/out" 2>&1
    "$H" run --backend sim --width 4,8,16,32,64 --kernel 'hip/*' --case 'sum_4097' \
        --json "$T/shipped2.jsonl" --quiet >>"$T/out" 2>&1
    cat "$T/shipped2.jsonl" >>"$T/shipped.jsonl"
    json_check "shipped kernels keep their verdicts under the mixed schedule" "$T/shipped.jsonl" \
        'recs and not any(r["verdict"] in ("FAIL", "XPASS", "ERROR") for r in recs)'

    echo "integration: the wave64 port check runs CUDA sources at width 64"
    "$H" run --backend sim --width 32,64 --only-manifest --manifest "$S/port.manifest" --json "$T/port.jsonl" --quiet >"$T/out" 2>&1
    for k in ballot32 butterfly16; do
        json_check "CUDA warp-32 $k passes at 32, is caught as ported to wave64" "$T/port.jsonl" \
            "all(r['verdict'] == 'PASS' for r in find(kernel='$k', width=32)) and any(r['verdict'] == 'FAIL' for r in find(kernel='$k', width=64))"
    done
    "$H" run --backend sim --width 64 --kernel 'cuda/reduce_wave64' --case 'sum_4097' --json "$T/w64cu.jsonl" --quiet >"$T/out" 2>&1
    json_check "a CUDA kernel written for 64 lanes runs and passes at width 64" "$T/w64cu.jsonl" \
        'find(kernel="reduce_wave64")[0]["verdict"] == "PASS"'

    echo "integration: users' real-world sources, and the binary that runs is the file given"
    "$H" run --backend sim --width 32 --only-manifest --manifest "$S/features.manifest" --case 'edge_*' \
        --json "$T/feat.jsonl" --quiet >"$T/out" 2>&1
    json_check "no includes, a warning, uint, float4, __half, cooperative groups: passes" "$T/feat.jsonl" \
        'find(kernel="feature_sgemm") and all(r["verdict"] == "PASS" for r in find(kernel="feature_sgemm"))'
    json_check "a template-id entry (op ABI) passes" "$T/feat.jsonl" \
        'find(kernel="sgemm_tmpl") and all(r["verdict"] == "PASS" for r in find(kernel="sgemm_tmpl"))'
    expect_exit 1 "users' kernels that do not build fail the run" -- env XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 \
        --only-manifest --manifest "$S/broken.manifest" --case 'edge_15*' --json "$T/brk.jsonl"
    json_check "a compile error is an ERROR with its line and log" "$T/brk.jsonl" \
        'any(r["verdict"] == "ERROR" and "not_declared" in r["why"] and "log: " in r["why"] for r in find(kernel="broken"))'
    json_check "inline PTX is named as the unmodelled feature" "$T/brk.jsonl" \
        'any(r["verdict"] == "ERROR" and "inline assembly" in r["why"] for r in find(kernel="ptx_lane"))'
    mkdir -p "$T/shadow"
    cp "$S/shadow/sgemm_naive.cu" "$S/shadow/shadow.manifest" "$T/shadow/"
    touch -d '2000-01-01' "$T/shadow/sgemm_naive.cu"
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$T/shadow/shadow.manifest" \
        --case 'edge_*' --json "$T/shadow.jsonl" --quiet >"$T/out" 2>&1
    json_check "a user's sgemm_naive.cu older than build/ runs itself, not the shipped kernel" "$T/shadow.jsonl" \
        'recs and all(r["verdict"] == "FAIL" for r in recs)'
    mkdir -p "$T/dep"
    echo '#define SCALE 1.0f' >"$T/dep/scale.h"
    { echo '#include "scale.h"'; sed 's/= acc;/= acc * SCALE;/' kernels/cuda/sgemm_naive.cu; } >"$T/dep/k.cu"
    XDG_CACHE_HOME="$T/cache" "$T/drive" "$B" "$T/dep/k.cu" sgemm_naive >"$T/out" 2>&1
    has "a user kernel with its own header builds and is right" "result: right"
    echo '#define SCALE 2.0f' >"$T/dep/scale.h"
    XDG_CACHE_HOME="$T/cache" "$T/drive" "$B" "$T/dep/k.cu" sgemm_naive >"$T/out" 2>&1
    has "editing only the header rebuilds the kernel (the cache checks what the build read)" "result: wrong"
    mkdir -p "$T/open/gpu-harness/sim" && chmod 777 "$T/open/gpu-harness/sim"
    XDG_CACHE_HOME="$T/open" "$H" run --backend sim --width 32 --only-manifest --manifest "$S/features.manifest" \
        --case 'edge_15*' --json "$T/open.jsonl" --quiet >"$T/out" 2>&1
    json_check "a cache folder writable by others is refused" "$T/open.jsonl" \
        'recs and all(r["verdict"] == "ERROR" and "is writable by others" in r["why"] for r in recs)'
    if [ "$(id -u)" = 0 ]; then
        mkdir -p "$T/theirs/gpu-harness/sim" && chown -R nobody "$T/theirs/gpu-harness"
        XDG_CACHE_HOME="$T/theirs" "$H" run --backend sim --width 32 --only-manifest --manifest "$S/features.manifest" \
            --case 'edge_15*' --json "$T/theirs.jsonl" --quiet >"$T/out" 2>&1
        json_check "a cache folder owned by another user is refused" "$T/theirs.jsonl" \
            'recs and all(r["verdict"] == "ERROR" and "owned by another user" in r["why"] for r in recs)'
    else
        skip "a cache folder owned by another user is refused" "needs root to give a folder away"
    fi
    echo "integration: bench files (issue 14): --json, --csv, --svg, --devices all"
    expect_exit 0 "bench on the emulator writes its files" -- "$H" bench --backend sim --devices all \
        --kernel 'cuda/sgemm_tiled' --sizes 16,24 --reduce-n 4096 --runs 1 \
        --json "$T/bench.json" --csv "$T/bench.csv" --svg "$T/bench.svg"
    if python3 - "$T/bench.json" "$T/bench.csv" >"$T/py" 2>&1 <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
tiled = [r for r in rows if r["impl"] == "cuda/sgemm_tiled"]
assert doc["schema"] == 1 and doc["sizes"] == [16, 24] and doc["runs"] == 1, doc
assert sorted(r["n"] for r in tiled) == [16, 24] and all(r["tflops"] > 0 and r["device_index"] == 0 for r in tiled), tiled
assert any(r["kind"] == "copy" and r["gbs"] > 0 and r["pct_copy"] == 100 for r in rows), rows
table = list(csv.DictReader(open(sys.argv[2])))
assert len(table) == len(rows) and [t["impl"] for t in table] == [r["impl"] for r in rows], table
assert all(t["unit"] == ("TFLOPS" if t["op"] == "sgemm" else "GB/s") for t in table), table
PY
    then ok "bench JSON and CSV hold the same rows: each size of the kernel, and the copy"; else bad "bench JSON/CSV" "$T/py"; fi
    if xmllint --noout "$T/bench.svg" 2>"$T/py" && [ "$(grep -c '<polyline' "$T/bench.svg")" = 1 ] &&
        grep -q 'cuda/sgemm_tiled (sim)' "$T/bench.svg"; then
        ok "bench SVG is well-formed XML with one line for the one kernel, named in the legend"
    else
        bad "bench SVG" "$T/bench.svg"
    fi
    expect_exit 2 "bench --devices takes only 'all'" -- "$H" bench --backend sim --devices 1
    expect_exit 2 "bench --json needs a file" -- "$H" bench --backend sim --json
    echo "integration: JSON lines schema, seeds as strings, JUnit per device, reproducers (issue 14)"
    src=$(pwd)/kernels/cuda/reduce_wave64.cu
    printf '[wave64_claimed_good]\nop = reduce\nlang = cuda\nsource = %s\nentry = reduce_wave64\nblock = 256\ngrid = n/1024\nchunk = 1024\n' "$src" >"$T/claimed.manifest"
    expect_exit 1 "a broken kernel claimed good fails" -- "$H" run --backend sim --width 32 --only-manifest \
        --manifest "$T/claimed.manifest" --case 'sum_4097' --json "$T/rep.jsonl" --junit "$T/rep.xml" --html "$T/rep.html"
    cp "$T/out" "$T/rep.out"
    json_check "every record carries the schema; header first, end last" "$T/rep.jsonl" \
        'all(json.loads(l)["schema"] == 2 for l in open(sys.argv[1])) and json.loads(open(sys.argv[1]).readline())["record"] == "header" and json.loads(open(sys.argv[1]).readlines()[-1]) == {"schema": 2, "record": "end", "results": len(recs), "interrupted": False}'
    json_check "seeds and hashes are strings" "$T/rep.jsonl" \
        'recs and all(isinstance(r["seed"], str) and isinstance(r["output_hash"], str) for r in recs)'
    seed_py=$(python3 -c 'import json,sys; print([r for r in map(json.loads, open(sys.argv[1])) if r.get("record") == "result"][0]["seed"])' "$T/rep.jsonl")
    if grep -q "seed $seed_py\]" "$T/rep.out" && [ "${#seed_py}" -gt 16 ]; then ok "seed past 2^53 reads back exactly in python ($seed_py)"; else bad "seed reads back exactly in python" "$T/rep.out"; fi
    if command -v jq >/dev/null; then
        seed_jq=$(jq -r 'select(.record == "result") | .seed' "$T/rep.jsonl" | head -1)
        if [ "$seed_jq" = "$seed_py" ]; then ok "jq reads the same seed"; else bad "jq reads the same seed ($seed_jq vs $seed_py)" "$T/rep.out"; fi
    else
        skip "jq reads the same seed" "jq not installed"
    fi
    if xmllint --noout "$T/rep.xml" 2>"$T/xml" && grep -q '<testsuite name="sim:0:w32"' "$T/rep.xml" &&
        grep -q '<property name="device" value="SIMT' "$T/rep.xml" && grep -q 'hostname="' "$T/rep.xml" &&
        grep -q 'classname="sim:0:w32:cuda/wave64_claimed_good"' "$T/rep.xml" &&
        grep -q '<failure type="wrong" message="FAIL wrong: .*bad.*threshold.*seed' "$T/rep.xml" &&
        grep -q '>reproduce: .*harness run --backend sim --device 0 --width 32' "$T/rep.xml"; then
        ok "JUnit: suite per device and width, properties, figures in the message, reproducer in the body"
    else
        bad "JUnit: suite per device and width, properties, figures in the message, reproducer in the body" "$T/rep.xml"
    fi
    rerun=$(grep -m1 '^ *rerun: ' "$T/rep.out" | sed 's/^ *rerun: //')
    if [ -n "$rerun" ] && grep -q 'rerun: <code>' "$T/rep.html"; then ok "failure line and HTML caption carry the reproducer"; else bad "failure line and HTML caption carry the reproducer" "$T/rep.out"; fi
    eval "$rerun --json '$T/again.jsonl'" >"$T/out" 2>&1
    json_check "the reproducer reruns that one case with the same verdict" "$T/again.jsonl" \
        'len(recs) == 1 and recs[0]["case"] == "sum_4097" and recs[0]["verdict"] == "FAIL"'

    echo "integration: invalid UTF-8 in a compiler message still makes valid reports (issue 17.11)"
    # The compiler names the file: a folder name that is not UTF-8 puts raw bytes in the message.
    U8="$T/utf$(printf '\377\376')"
    mkdir -p "$U8"
    cp tests/data/user_kernel/user.manifest "$U8/"
    sed 's/float s = 0.0f;/float s = not_declared;/' tests/data/user_kernel/my_reduce.cu >"$U8/my_reduce.cu"
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$U8/user.manifest" \
        --case 'sum_4097' --json "$T/utf.jsonl" --junit "$T/utf.xml" --html "$T/utf.html" >"$T/out" 2>&1
    json_check "the compiler's message, path included, is in the record" "$T/utf.jsonl" \
        'any("not_declared" in r["why"] and "utf\ufffd\ufffd/my_reduce.cu" in r["why"] for r in recs)'
    if xmllint --noout "$T/utf.xml" 2>"$T/xml"; then ok "JUnit with invalid UTF-8 in a message is valid XML"; else bad "JUnit with invalid UTF-8 in a message is valid XML" "$T/xml"; fi
    if python3 -c 'import sys; [open(f, encoding="utf-8").read() for f in sys.argv[1:]]' "$T/utf.jsonl" "$T/utf.html" "$T/out" 2>"$T/py"; then
        ok "JSON, HTML and terminal output are valid UTF-8"
    else
        bad "JSON, HTML and terminal output are valid UTF-8" "$T/py"
    fi

    echo "integration: the gate refuses baselines and merges that do not add up (issue 17.8)"
    run_reduce() { "$H" run --backend sim --width 32 --kernel 'cuda/reduce_generic' --quiet "$@"; }
    run_reduce --case 'sum_1*' --record "$T/b.jsonl" >"$T/out" 2>&1
    expect_exit 0 "compare with a whole baseline" -- run_reduce --case 'sum_1*' --compare "$T/b.jsonl"
    : >"$T/b_empty.jsonl"
    head -n 2 "$T/b.jsonl" >"$T/b_cut.jsonl"
    printf '\0\0\0\0\n\0\0\n' >"$T/b_nul.jsonl"
    for k in empty cut nul; do
        expect_exit 2 "compare with a $k baseline" -- run_reduce --case 'sum_1*' --compare "$T/b_$k.jsonl"
    done
    expect_exit 2 "a baseline that does not cover the run" -- run_reduce --compare "$T/b.jsonl"
    expect_exit 0 "... accepted with --allow-new" -- run_reduce --compare "$T/b.jsonl" --allow-new
    run_reduce --shard 0/2 --json "$T/m0.jsonl" >"$T/out" 2>&1
    run_reduce --shard 1/2 --json "$T/m1.jsonl" >"$T/out" 2>&1
    expect_exit 0 "merge of both shards" -- "$H" merge --json "$T/m.jsonl" "$T/m0.jsonl" "$T/m1.jsonl"
    expect_exit 2 "merge of the same shard twice" -- "$H" merge "$T/m0.jsonl" "$T/m0.jsonl"
    expect_exit 2 "merge of one shard of two" -- "$H" merge "$T/m0.jsonl"
    expect_exit 2 "merge of an empty file" -- "$H" merge "$T/m0.jsonl" "$T/b_empty.jsonl"
    expect_exit 2 "merge of NUL garbage" -- "$H" merge "$T/m0.jsonl" "$T/b_nul.jsonl"

    echo "integration: every write checked, outputs checked before the run (issue 17.9)"
    for f in json junit; do
        if [ -w /dev/full ]; then
            expect_exit 2 "--$f /dev/full" -- run_reduce --case sum_1 "--$f" /dev/full
            if grep -q "/dev/full: cannot write: No space left" "$T/out"; then ok "--$f /dev/full says why"; else bad "--$f /dev/full says why" "$T/out"; fi
        else
            skip "--$f /dev/full" "no /dev/full"
        fi
    done
    for opt in --html --record; do
        expect_exit 2 "unwritable $opt fails before the run" -- run_reduce "$opt" "$T/no/such/dir/x"
        if ! grep -q "references in" "$T/out"; then ok "$opt checked before the run"; else bad "$opt checked before the run" "$T/out"; fi
    done
    expect_exit 2 "missing --compare file fails before the run" -- run_reduce --compare "$T/none.jsonl"
    if ! grep -q "references in" "$T/out"; then ok "--compare checked before the run"; else bad "--compare checked before the run" "$T/out"; fi

    echo "integration: an all-NaN failure says where its NaN came from (issue 17.4)"
    mkdir -p "$T/nan"
    sed 's/C\[(size_t)row \* N + col\] = acc;/C[(size_t)row * N + col] = C[(size_t)row * N + col] + acc;/' \
        kernels/cuda/sgemm_naive.cu >"$T/nan/reads_c.cu"
    printf '[reads_c]\nop = sgemm\nlang = cuda\nsource = reads_c.cu\nentry = sgemm_naive\nblock = 16 16\ngrid = N/16 M/16\n' >"$T/nan/nan.manifest"
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$T/nan/nan.manifest" \
        --case 'edge_15x16x17' --json "$T/nan.jsonl" >"$T/out" 2>&1
    if grep -q "240 NaN from the output poison (C read before it was written)" "$T/out" && ! grep -q "max ratio 0," "$T/out"; then
        ok "NaN counted by origin, no 'max ratio 0'"
    else
        bad "NaN counted by origin, no 'max ratio 0'" "$T/out"
    fi
    json_check "nan_poison in the record" "$T/nan.jsonl" 'recs[0]["nan_poison"] == 240 and recs[0]["overflowed"] == 0'

    echo "integration: reports valid and closed after SIGTERM"
    # The standard tier: long enough that the signal lands mid-run.
    "$H" run --backend sim --width 32 --tier standard --kernel 'cuda/sgemm_naive' --junit "$T/term.xml" --json "$T/term.jsonl" >"$T/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do [ "$(wc -l <"$T/term.jsonl" 2>/dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
    kill -TERM $pid; wait $pid
    if xmllint --noout "$T/term.xml" 2>"$T/xml"; then ok "JUnit valid after SIGTERM"; else bad "JUnit valid after SIGTERM" "$T/xml"; fi
    if tail -1 "$T/term.jsonl" | grep -q '"record":"end".*"interrupted":true'; then ok "JSON ends with an end record saying interrupted"; else bad "JSON ends with an end record saying interrupted" "$T/term.jsonl"; fi
fi

if [ -z "$(device_count sim)" ]; then
    skip "declared signatures on the emulator" "sim backend not built"
else
    echo "integration: users' kernels through manifests alone: args, template entries, alpha/beta, layouts"
    U=tests/data/ukern
    C='edge_15x16x17,exact_17x16x15,beta0_*,add_exact_*,stride_17x31x9,stride_exact_*,sum_4097,exact_33'
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$U/ukern.manifest" \
        --cases "$U/scalars.cases" --case "$C" --json "$T/uk.jsonl" --quiet >"$T/out" 2>&1
    json_check "template entry gemm_tiled<16>, args M N K alpha A lda B ldb beta C ldc, row-major: passes" "$T/uk.jsonl" \
        'len(find(kernel="gemm_row")) == 4 and all(r["verdict"] == "PASS" for r in find(kernel="gemm_row")) and find(kernel="gemm_row", case="edge_15x16x17")[0]["alpha"] == 0.5 and find(kernel="gemm_row", case="edge_15x16x17")[0]["beta"] == -2 and find(kernel="gemm_row", case="beta0_33x31x17")[0]["beta"] == 0'
    json_check "the same signature on column-major data (layout = col): passes" "$T/uk.jsonl" \
        'len(find(kernel="gemm_col")) == 4 and all(r["verdict"] == "PASS" and r["layout"] == "col" for r in find(kernel="gemm_col"))'
    json_check "row- and column-major with padded leading dimensions: passes, padding intact" "$T/uk.jsonl" \
        'all(len(find(kernel=k)) == 2 and all(r["verdict"] == "PASS" for r in find(kernel=k)) for k in ("gemm_row_strided", "gemm_col_strided"))'
    json_check "exact cases stay exact with alpha and beta (0 ULP)" "$T/uk.jsonl" \
        'all(r["max_ratio"] == 0 and r["max_ulp"] == 0 for r in recs if "exact" in r["case"])'
    json_check "a .cu with <cstdio>, <cassert> and a style warning builds (warnings logged) and passes" "$T/uk.jsonl" \
        '"warnings in" in find(kernel="gemm_row")[0]["binary"]'
    json_check "an atomics reduction declared deterministic = no passes, its ULP spread reported" "$T/uk.jsonl" \
        'find(kernel="reduce_atomic", case="sum_4097")[0]["verdict"] == "PASS" and find(kernel="reduce_atomic", case="sum_4097")[0]["repeat_ulp"] > 0 and "deterministic = no" in find(kernel="reduce_atomic", case="sum_4097")[0]["why"]'
    json_check "a size_t length declared n:u64 passes" "$T/uk.jsonl" \
        'len(find(kernel="reduce_sized")) == 2 and all(r["verdict"] == "PASS" for r in find(kernel="reduce_sized"))'
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$U/strict.manifest" \
        --case 'sum_4097' --json "$T/strict.jsonl" --quiet >"$T/out" 2>&1
    json_check "the same reduction without deterministic = no is FAIL nondeterministic" "$T/strict.jsonl" \
        'recs and all(r["verdict"] == "FAIL" and r["classes"] == "nondeterministic" for r in recs)'
    expect_exit 1 "kernels that take beta and ignore it fail the run" -- env XDG_CACHE_HOME="$T/cache" "$H" run --backend sim \
        --width 32 --only-manifest --manifest "$U/nobeta.manifest" --cases "$U/scalars.cases" --case "$C" \
        --json "$T/nobeta.jsonl" --quiet
    json_check "ignoring beta is FAIL wrong on row- and column-major data, right where beta = 0" "$T/nobeta.jsonl" \
        'all(any(r["verdict"] == "FAIL" and r["classes"] == "wrong" for r in find(kernel=k)) and find(kernel=k, case="beta0_33x31x17")[0]["verdict"] == "PASS" for k in ("gemm_row_nobeta", "gemm_col_nobeta"))'
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest tests/data/sim/oob.manifest \
        --kernel '*/oob_read_write' --case 'edge_15x16x17,m0_*' --json "$T/oobm0.jsonl" --quiet >"$T/out" 2>&1
    json_check "an empty grid after a faulting case is not charged with that case's accesses" "$T/oobm0.jsonl" \
        'find(case="edge_15x16x17")[0]["verdict"] == "FAIL" and find(case="m0_0x17x5")[0]["verdict"] == "PASS"'
    expect_exit 1 "a user kernel that does not compile fails the run" -- env XDG_CACHE_HOME="$T/cache" "$H" run --backend sim \
        --width 32 --only-manifest --manifest "$U/broken.manifest" --case 'edge_15*' --json "$T/ubrk.jsonl" --quiet
    json_check "it is an ERROR with the compiler's first error and the log" "$T/ubrk.jsonl" \
        'any(r["verdict"] == "ERROR" and "broken.cu:6" in r["why"] and "log: " in r["why"] for r in recs)'
fi

if [ -z "$(device_count vulkan)" ] || [ "$(device_count vulkan)" = 0 ]; then
    skip "declared signatures on lavapipe" "no Vulkan device"
else
    echo "integration: a GLSL kernel's declared signature on lavapipe; one that does not compile is an ERROR"
    expect_exit 1 "a GLSL user kernel that does not compile fails the run" -- env HB_VK_VALIDATION=1 XDG_CACHE_HOME="$T/cache" \
        "$H" run --backend vulkan --width 8 --only-manifest --manifest tests/data/ukern/vulkan.manifest \
        --case 'edge_15x16x17,exact_17x16x15' --json "$T/vkuk.jsonl" --quiet
    json_check "buffers bound and scalars pushed in the declared order (C A B alpha beta M N:u64 K): passes" "$T/vkuk.jsonl" \
        'len(find(kernel="vk_gemm_ab")) == 2 and all(r["verdict"] == "PASS" and "built at run time" in r["binary"] for r in find(kernel="vk_gemm_ab"))'
    json_check "the broken GLSL kernel is an ERROR with glslc's first error and the log" "$T/vkuk.jsonl" \
        'any(r["verdict"] == "ERROR" and "broken.comp:6: error" in r["why"] and "log: " in r["why"] for r in find(kernel="vk_broken"))'
fi

echo "integration: the command line (issue 14)"
for c in run list bench merge; do
    expect_exit 0 "$c --help" -- "$H" "$c" --help
    expect_exit 0 "help $c" -- "$H" help "$c"
done
expect_exit 0 "--version" -- "$H" --version
if grep -q '^harness [0-9][^ ]* (commit [0-9a-f]' "$T/out" && grep -q '^backends: .*sim:' "$T/out" &&
    grep -q '^cflags: .*-Werror' "$T/out"; then ok "--version names the commit, flags and backends"
else bad "--version names the commit, flags and backends" "$T/out"; fi
expect_exit 2 "bench: unknown option" -- "$H" bench --frobnicate
if grep -q -- "--frobnicate: unknown option" "$T/out"; then ok "the bad option is named"; else bad "the bad option is named" "$T/out"; fi
expect_exit 2 "bench: --sizes=0" -- "$H" bench --sizes=0
expect_exit 2 "merge: no input" -- "$H" merge
expect_exit 2 "merge: unknown option" -- "$H" merge --frobnicate x.jsonl
expect_exit 2 "--width 7 can never run" -- "$H" run --width 7
expect_exit 2 "--shard 1/99999999999" -- "$H" run --shard 1/99999999999
expect_exit 2 "--id with an empty field" -- "$H" run --id 'sim::w32'
expect_exit 2 "--rerun-failed of a missing file" -- "$H" run --rerun-failed "$T/none.jsonl"

if [ -z "$(device_count sim)" ]; then
    skip "--list, --id, --rerun-failed, --shrink" "sim backend not built"
else
    expect_exit 2 "--device past the last device" -- "$H" run --backend sim --device 15
    expect_exit 0 "--list with --opt=value, a comma list and a repeat" -- "$H" run --list --backend=sim \
        --width=4,32 --kernel cuda/sgemm_naive -k cuda/sgemm_tiled --case=edge_15x16x17
    cp "$T/out" "$T/ids"
    if [ "$(cat "$T/ids")" = "$(printf '%s\n' sim:0:w4:cuda/sgemm_naive:edge_15x16x17 \
        sim:0:w4:cuda/sgemm_tiled:edge_15x16x17 sim:0:w32:cuda/sgemm_naive:edge_15x16x17 \
        sim:0:w32:cuda/sgemm_tiled:edge_15x16x17)" ]; then ok "--list prints one pasteable id per result"
    else bad "--list prints one pasteable id per result" "$T/ids"; fi
    id=$(sed -n 3p "$T/ids")
    expect_exit 0 "--id re-runs one listed result" -- "$H" run --id "$id" --json "$T/id.jsonl"
    json_check "--id ran exactly that result" "$T/id.jsonl" \
        "[(r['backend'], r['width'], r['lang'] + '/' + r['kernel'], r['case']) for r in recs] == [('sim', 32, 'cuda/sgemm_naive', 'edge_15x16x17')]"
    "$H" run --list --backend sim --width 8,32 --kernel 'cuda/*' --case 'edge_15x16x17,sum_4097' >"$T/ids2" 2>&1
    "$H" run --backend sim --width 8,32 --kernel 'cuda/*' --case 'edge_15x16x17,sum_4097' --timeout 10 \
        --json "$T/ids2.jsonl" >"$T/out" 2>&1
    json_check "--list names exactly the results a run makes" "$T/ids2.jsonl" \
        "sorted('%s:0:w%d:%s/%s:%s' % (r['backend'], r['width'], r['lang'], r['kernel'], r['case']) for r in recs if r['case'] != '*') == sorted(open('$T/ids2').read().split())"
    name=$("$H" list | awk '$1 == "cuda/sgemm_tiled" { print $1 }')
    if [ -n "$name" ] && "$H" run --list --backend sim --width 32 --kernel "$name" --case edge_1x2x3 >"$T/out" 2>&1 &&
        [ "$(cat "$T/out")" = "sim:0:w32:cuda/sgemm_tiled:edge_1x2x3" ]; then ok "harness list names paste into --kernel"
    else bad "harness list names paste into --kernel ('$name')" "$T/out"; fi

    SH=tests/data/shrink/shrink.manifest
    expect_exit 1 "a planted bug fails past 16 rows" -- "$H" run --backend sim --width 32 --manifest "$SH" \
        --only-manifest --case 'edge_1[25]*,exact_9*' --json "$T/planted.jsonl"
    json_check "3 FAIL, 2 PASS" "$T/planted.jsonl" \
        "sorted(r['verdict'] for r in recs) == ['FAIL', 'FAIL', 'FAIL', 'PASS', 'PASS']"
    # The reproducer's form (backend, device, width, kernel, case, manifest) reruns that one result.
    expect_exit 1 "the reproducer command reruns the failing case" -- "$H" run --backend sim --device 0 --width 32 \
        --kernel cuda/tile_edge --case edge_129x1x2 --manifest "$SH" --only-manifest --json "$T/repro.jsonl"
    python3 -c "import json; json.dump([json.loads(l) for l in open('$T/planted.jsonl') if '\"edge_129x1x2\"' in l], open('$T/planted.json', 'w'))"
    json_check "the rerun has the original's verdict and classes" "$T/repro.jsonl" \
        "[(r['case'], r['verdict'], r['classes']) for r in recs] == [(r['case'], r['verdict'], r['classes']) for r in json.load(open('$T/planted.json'))]"
    expect_exit 1 "--rerun-failed" -- "$H" run --backend sim --manifest "$SH" --only-manifest \
        --rerun-failed "$T/planted.jsonl" --json "$T/rerun.jsonl"
    json_check "--rerun-failed reran exactly the failures" "$T/rerun.jsonl" \
        "sorted((r['width'], r['case'], r['verdict']) for r in recs) == [(32, c, 'FAIL') for c in ('edge_127x128x129', 'edge_128x129x1', 'edge_129x1x2')]"
    grep -v '"FAIL"' "$T/planted.jsonl" >"$T/green.jsonl"
    expect_exit 0 "--rerun-failed of a green run has nothing to do" -- "$H" run --rerun-failed "$T/green.jsonl"

    expect_exit 1 "--shrink" -- "$H" run --backend sim --width 32 --manifest "$SH" --only-manifest \
        --case edge_127x128x129 --shrink
    if grep -q "^shrink: sim:0:w32:cuda/tile_edge:edge_127x128x129 FAIL wrong: still fails at M=17 N=1 K=1" "$T/out"
    then ok "--shrink finds the smallest failing size (127x128x129 to 17x1x1)"
    else bad "--shrink finds the smallest failing size" "$T/out"; fi
    repro=$(sed -n 's/^  reproduce: //p' "$T/out" | sed "s|harness run|$PWD/$H run|")
    (cd "$T" && eval "$repro --json $T/shrunk.jsonl") >"$T/out2" 2>&1
    json_check "the shrunk reproducer fails the same way" "$T/shrunk.jsonl" \
        "[(r['M'], r['N'], r['K'], r['verdict'], r['classes']) for r in recs] == [(17, 1, 1, 'FAIL', 'wrong')]"
    expect_exit 0 "--shrink a canary" -- "$H" run --backend sim --width 32 --kernel cuda/fault_unwritten \
        --case edge_127x128x129 --shrink
    if grep -q "^shrink: .*cuda/fault_unwritten:edge_127x128x129 XFAIL unwritten: still fails at M=1 N=1 K=1" "$T/out"
    then ok "--shrink keeps a canary's class (unwritten at 1x1x1)"; else bad "--shrink keeps a canary's class" "$T/out"; fi
fi

echo "integration: make install, then the installed binary from another folder"
if make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$T/inst" PREFIX=/usr >"$T/out" 2>&1; then
    ok "make install DESTDIR=... PREFIX=/usr"
    if [ -z "$(device_count sim)" ]; then
        skip "the installed binary runs" "sim backend not built"
    else
        (cd / && "$T/inst/usr/bin/harness" run --backend sim --width 32 --kernel cuda/sgemm_naive \
            --case edge_15x16x17 --json "$T/inst.jsonl") >"$T/out" 2>&1
        rc=$?
        if [ $rc = 0 ]; then ok "installed harness runs from / (exit 0)"; else bad "installed harness exit $rc" "$T/out"; fi
        json_check "installed harness: one PASS" "$T/inst.jsonl" "[r['verdict'] for r in recs] == ['PASS']"
    fi
    if (cd / && "$T/inst/usr/bin/harness" --version) | grep -qx "data: *$T/inst/usr/share/gpu-harness .*"; then
        ok "installed harness finds its data next to itself"
    else bad "installed harness finds its data next to itself" "$T/out"; fi
    if HB_ROOT="$PWD" "$T/inst/usr/bin/harness" --version | grep -qx "data: *$PWD .*"; then ok "HB_ROOT still overrides"
    else bad "HB_ROOT still overrides" "$T/out"; fi
else
    bad "make install DESTDIR=... PREFIX=/usr" "$T/out"
fi

echo "integration: the CI examples"
if python3 -c 'import yaml' 2>/dev/null; then
    if python3 - >"$T/py" 2>&1 <<'PY'
import re, yaml
class Loader(yaml.SafeLoader): pass
Loader.add_constructor('!reference', lambda loader, node: loader.construct_sequence(node))
gh = yaml.load(open('ci/github-actions.yml'), Loader=Loader)
on = gh.get(True, gh.get('on'))
assert 'pull_request_target' not in on, 'pull_request_target runs fork code with secrets'
for name, job in gh['jobs'].items():
    runner = job['runs-on']
    if 'self-hosted' in runner:
        events = set(re.findall(r"github\.event_name == '(\w+)'", job.get('if', '')))
        assert events and events <= {'push', 'merge_group', 'workflow_dispatch', 'schedule'}, (name, job.get('if'))
        assert '!=' not in job['if'], (name, 'a negative condition lets pull requests in')
    for step in job['steps']:
        if 'action-junit-report' in step.get('uses', ''):
            assert job.get('permissions', {}).get('checks') == 'write', (name, 'checks: write')
report = yaml.load(open('ci/github-report.yml'), Loader=Loader)
assert list(report.get(True, report.get('on'))) == ['workflow_run'] and report['permissions']['checks'] == 'write'
assert not any('checkout' in s.get('uses', '') for j in report['jobs'].values() for s in j['steps'])
gl = yaml.load(open('ci/gitlab-ci.yml'), Loader=Loader)
for name, job in gl.items():
    if name.startswith('.') or not isinstance(job, dict) or 'stage' not in job:
        continue
    assert job.get('image'), (name, 'every GitLab job names its image')
    assert job['stage'] in gl['stages'], name
print('ok')
PY
    then ok "workflows: no fork code on GPU runners, checks: write, every GitLab job has an image"
    else bad "CI examples" "$T/py"; fi
else
    skip "CI examples" "python3 yaml module missing"
fi
if sh -n ci/install-deps.sh; then ok "install-deps.sh parses"; else bad "install-deps.sh parses"; fi

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
    if ! grep -q 'a previous run' "$T/stale.jsonl" && tail -1 "$T/stale.jsonl" | grep -q '"interrupted":true' && xmllint --noout "$T/stale.xml" 2>/dev/null; then
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
