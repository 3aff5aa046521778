# SPDX-License-Identifier: MIT
# tests/integration/kernels_and_reports.sh: the emulator's exact access checks and schedules,
# users' real-world sources and declared signatures, bench files, reports (JSON, JUnit, UTF-8,
# write errors, NaN origins, SIGTERM) and the gate's input checks.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
if [ -z "$(device_count sim)" ]; then
    skip "emulator access, schedule, port and build checks" "sim backend not built"
else
    echo "integration: the emulator sees every access (driven through backend.h as the core will)"
    S=tests/data/sim
    B=$(cd "$BUILD" && pwd)
    cc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -Iharness/abi "$S/drive.c" -o "$T/drive" -ldl -lm
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
    has "shipped sgemm_optimized runs the binary make built, named with its source hash" \
        "(built by make; repeats after a clean first launch: sgemm_optimized.unchecked.so (no access checks)); source $(pwd)/kernels/cuda/sgemm_optimized.cu fnv1a64 "

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
    has "its binary was built at run time" "(built at run time; repeats after a clean first launch: "
    has "... named with its source hash" "(no access checks)); source $(pwd)/$S/template.cu fnv1a64"
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
    json_check "... a race whose repeat is wrong is not told to declare deterministic = no" "$T/mixed.jsonl" \
        'recs and not any("deterministic = no" in r["why"] for r in recs)'
    json_check "the same kernel passes at width 64" "$T/mixed.jsonl" \
        'find(width=64) and all(r["verdict"] == "PASS" for r in find(width=64))'
    json_check "... its volatile accesses are sync points: no unchecked copy runs its repeats" "$T/mixed.jsonl" \
        'recs and not any("unchecked" in r["binary"] for r in recs)'

    echo "integration: a case's repeats run the kernel's unchecked copy, its first launch the checked one"
    if [ -f "$BUILD/kernels/sim/cuda/sgemm_naive.unchecked.so" ] && [ -f "$BUILD/kernels/sim/cuda/fault_warpsync.so" ] &&
        [ ! -e "$BUILD/kernels/sim/cuda/fault_warpsync.unchecked.so" ]; then
        ok "make builds an unchecked copy of a kernel without volatile accesses, none of one with them"
    else bad "make builds an unchecked copy of a kernel without volatile accesses, none of one with them"; fi
    XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 --only-manifest --manifest "$S/sticky.manifest" \
        --case edge_15x16x17 --json "$T/sticky.jsonl" --quiet >"$T/out" 2>&1
    json_check "a __device__ global the first launch sets: its repeat sees it (FAIL nondeterministic)" "$T/sticky.jsonl" \
        'recs and all(r["verdict"] == "FAIL" and "nondeterministic" in r["classes"] for r in recs)'
    json_check "... the run-time build has an unchecked copy, named in the row" "$T/sticky.jsonl" \
        'recs and all(".unchecked.so (no access checks)" in r["binary"] for r in recs)'
    "$H" run --backend sim --width 32 --kernel cuda/fault_race --cases "$S/same_size.cases" --json "$T/both.jsonl" \
        --quiet >"$T/out" 2>&1
    "$H" run --backend sim --width 32 --kernel cuda/fault_race --cases "$S/same_size.cases" --case sum_4096_exact \
        --json "$T/alone.jsonl" --quiet >>"$T/out" 2>&1
    if python3 - "$T/both.jsonl" "$T/alone.jsonl" <<'PY' 2>>"$T/out"
import json, sys
def hashes(path):
    return [(r["case"], r["output_hash"]) for r in map(json.loads, open(path)) if r.get("record") == "result"]
both, alone = hashes(sys.argv[1]), hashes(sys.argv[2])
sys.exit(not (len(both) == 2 and alone and both[1] == alone[0]))
PY
    then ok "a case run after one of its size (its buffers reused) launches as when run alone (racy canary, same output)"
    else bad "a case run after one of its size launches as when run alone" "$T/out"; fi
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
    json_check "every spelling of nvcc's #pragma unroll builds for g++ and passes" "$T/feat.jsonl" \
        'find(kernel="unroll_sgemm") and all(r["verdict"] == "PASS" for r in find(kernel="unroll_sgemm"))'
    # fmaf is a libm call on baseline x86-64 (each call spills the accumulators): fused where the CPU fuses, a*b+c never contracted.
    fma=$(grep -qw fma /proc/cpuinfo && echo 1 || echo 0)
    json_check "run-time builds: a*b+c not contracted, and -mfma where the CPU fuses" "$T/feat.jsonl" \
        "recs and all('-ffp-contract=off' in r['binary'] and ('-mfma' in r['binary']) == bool($fma) for r in recs)"
    if [ "$fma" = 1 ] && command -v objdump >/dev/null; then
        if objdump -d "$BUILD/kernels/sim/cuda/sgemm_optimized.so" | grep -q 'call.*fmaf'; then
            bad "the shipped sgemm_optimized calls libm's fmaf on a CPU that fuses"
        else
            ok "the shipped sgemm_optimized fuses its multiply-adds in one instruction"
        fi
    fi
    expect_exit 1 "users' kernels that do not build fail the run" -- env XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --width 32 \
        --only-manifest --manifest "$S/broken.manifest" --case 'edge_15*' --json "$T/brk.jsonl"
    json_check "a compile error is an ERROR with its line and log" "$T/brk.jsonl" \
        'any(r["verdict"] == "ERROR" and "not_declared" in r["why"] and "log: " in r["why"] for r in find(kernel="broken"))'
    json_check "inline PTX is a SKIP naming the unmodelled feature" "$T/brk.jsonl" \
        'any(r["verdict"] == "SKIP" and "inline assembly" in r["why"] for r in find(kernel="ptx_lane"))'
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
        # Group-writable for root's group: a worker holds no capability, so root writes only
        # where the modes let it, and a folder it could not write would be passed over, not used.
        mkdir -p "$T/theirs/gpu-harness/sim" && chown -R nobody:0 "$T/theirs/gpu-harness" && chmod 775 "$T/theirs/gpu-harness/sim"
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
    for _ in $(seq 1 300); do [ "$(wc -l <"$T/term.jsonl" 2>/dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
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
    json_check "... each launch within the bound: its message names the remedy, deterministic = no" "$T/strict.jsonl" \
        'recs and all("its manifest says deterministic = no" in r["why"] for r in recs)'
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
