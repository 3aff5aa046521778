# SPDX-License-Identifier: MIT
# tests/integration/basics.sh: bad input and exit codes, canaries and faults on the emulator and
# lavapipe, users' kernels, the HIP backend, shards and baselines, bounds, runs that ran nothing.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
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
elif ! cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iharness/abi tests/backend_probe.c -o "$T/probe" -ldl 2>"$T/out"; then
    bad "tests/backend_probe.c builds" "$T/out"
else
    "$T/probe" "$BUILD/backends/hb_hip.so" >"$T/probe.out" 2>&1
    # make records the platform it built for (backend.mk); AMD is reported as no platform
    want=$(cat "$BUILD/backends/hip-platform.stamp" 2>/dev/null)
    [ "$want" = amd ] && want='(none)'
    abi=$(sed -n 's/^#define HB_BACKEND_ABI \([0-9]*\)$/\1/p' harness/abi/backend.h)
    if grep -qx "abi=$abi" "$T/probe.out" && grep -qxF "platform=$want" "$T/probe.out"; then
        ok "hb_hip.so loads by dlopen and reports platform $want"
    else
        bad "hb_hip.so loads by dlopen and reports platform $want" "$T/probe.out"
    fi
    if grep -qx 'caps=2' "$T/probe.out"; then
        ok "hb_hip.so says by a capability bit that its kernels see raw pointers"
    else
        bad "hb_hip.so says by a capability bit that its kernels see raw pointers" "$T/probe.out"
    fi
    if ! grep -qx 'devices=0' "$T/probe.out"; then
        skip "hip open() without a device" "this machine has a HIP device"
    elif grep -qx "open=3" "$T/probe.out" && grep -q '^why=no HIP device' "$T/probe.out"; then
        ok "hip open() without a device is HB_NO_DEVICE, with the reason"
    else
        bad "hip open() without a device is HB_NO_DEVICE, with the reason" "$T/probe.out"
    fi
fi

echo "integration: the CUDA and HIP backends ask for one work queue per context, never over yours"
if [ ! -x "$T/probe" ]; then
    skip "work queues per context" "tests/backend_probe.c not built (no hb_hip.so)"
else
    for so in "$BUILD/backends/hb_cuda.so" "$BUILD/backends/hb_hip.so"; do
        [ -e "$so" ] || { skip "work queues: $(basename "$so")" "not built"; continue; }
        env -u CUDA_DEVICE_MAX_CONNECTIONS "$T/probe" "$so" >"$T/queues.out" 2>&1
        CUDA_DEVICE_MAX_CONNECTIONS=4 "$T/probe" "$so" >"$T/queues4.out" 2>&1
        if grep -qx 'cuda_work_queues=1' "$T/queues.out" && grep -qx 'cuda_work_queues=4' "$T/queues4.out"; then
            ok "$(basename "$so") sets CUDA_DEVICE_MAX_CONNECTIONS=1 on load, and keeps a value you set"
        else
            bad "$(basename "$so") sets CUDA_DEVICE_MAX_CONNECTIONS=1 on load, and keeps a value you set" "$T/queues.out"
        fi
    done
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
    expect_exit 4 "a run whose filters together select nothing exits 4" -- "$H" run --backend sim --width 32 \
        --kernel glsl/sgemm_naive --quiet
    "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case 'm0_*,n0_*' --json "$T/empty.jsonl" --quiet >"$T/out" 2>&1
    json_check "M = 0 and N = 0 are not launched, and pass with C untouched" "$T/empty.jsonl" \
        'len(recs) == 2 and all(r["verdict"] == "PASS" and r["threads"] == 0 and "not launched" in r["why"] for r in recs)'
fi

if [ -n "$(device_count sim)" ]; then
    echo "integration: OpenBLAS's kernels: its fallback replaced, the user's choice kept (ref.c)"
    for core in Prescott Haswell; do
        OPENBLAS_CORETYPE=$core "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case edge_15x16x17 >"$T/out" 2>&1
        if grep -q "^harness: .*DYNAMIC_ARCH.* $core " "$T/out"; then ok "OPENBLAS_CORETYPE=$core is kept"; else bad "OPENBLAS_CORETYPE=$core is kept" "$T/out"; fi
    done
    if grep -qw avx2 /proc/cpuinfo; then
        env -u OPENBLAS_CORETYPE "$H" run --backend sim --width 32 --kernel cuda/sgemm_naive --case edge_15x16x17 >"$T/out" 2>&1
        if grep "^harness: " "$T/out" | grep -qv " Prescott "; then ok "no Prescott fallback on an AVX2 CPU"; else bad "no Prescott fallback on an AVX2 CPU" "$T/out"; fi
    fi
fi
