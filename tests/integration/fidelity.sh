# SPDX-License-Identifier: MIT
# tests/integration/fidelity.sh: where the emulator and lavapipe must judge a kernel as a GPU
# would (issue 33): template shared memory per copy and poisoned before every block, the
# checked and unchecked copies sharing no symbol, locals past a lane's stack named, failure
# lines without scalars a crashed case never had, workgroup memory read before it is written.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
if [ -z "$(device_count sim)" ]; then
    skip "emulator fidelity checks" "sim backend not built"
else
    echo "integration: shared memory is per block and per copy, whatever the kernel's linkage"
    S=tests/data/sim
    fid() { XDG_CACHE_HOME="$T/cache" "$H" run --backend sim --only-manifest --manifest "$S/fidelity.manifest" \
        --cases "$S/fidelity.cases" --quiet "$@" >"$T/out" 2>&1; }
    for sched in lockstep mixed:0; do
        fid --width 32,64 --kernel vec_shared_sgemm --schedule "$sched" --json "$T/vec_$sched.jsonl"
        json_check "float4 stores into a template's and an inline function's static shared memory PASS at widths 32 and 64 ($sched)" \
            "$T/vec_$sched.jsonl" \
            'len(find(width=32)) == 2 and len(find(width=64)) == 2 and all(r["verdict"] == "PASS" and ".unchecked.so (no access checks)" in r["binary"] for r in recs)'
    done
    # The products of that build: the first row's binary, and its unchecked copy beside it.
    so=$(python3 -c 'import json, sys; print(next(r["binary"].split(" (")[0].removeprefix("binary ") for r in map(json.loads, open(sys.argv[1])) if r.get("record") == "result"))' "$T/vec_mixed:0.jsonl" 2>/dev/null)
    check_symbols() { # NAME FILE
        if [ -f "$2" ] && ! readelf -W --dyn-syms "$2" | grep -q ' UNIQUE ' && readelf -d "$2" | grep -q 'FLAGS.*SYMBOLIC'; then
            ok "$1: no STB_GNU_UNIQUE symbol, its own definitions bound first (readelf: nothing resolves to another copy)"
        else
            bad "$1 ($2): an STB_GNU_UNIQUE symbol, or no DT_SYMBOLIC (readelf)" "$T/out"
        fi
    }
    check_symbols "the template kernel's run-time build" "$so"
    check_symbols "... its unchecked copy" "${so%.so}.unchecked.so"
    check_symbols "make's sgemm_tiled.so" "$BUILD/kernels/sim/cuda/sgemm_tiled.so"
    check_symbols "... its unchecked copy" "$BUILD/kernels/sim/cuda/sgemm_tiled.unchecked.so"
    fid --width 32 --kernel unstaged_sgemm --repeats 3 --json "$T/unstaged.jsonl"
    json_check "a template kernel reading shared memory it never wrote FAILs, its repeats on the same poison (wrong alone)" \
        "$T/unstaged.jsonl" \
        'len(recs) == 2 and all(r["verdict"] == "FAIL" and r["classes"] == "wrong" and ".unchecked.so" in r["binary"] for r in recs)'

    echo "integration: a lane's stack overflow names the limit"
    fid --width 32 --kernel big_local_sgemm --case tile_64x64x64 --json "$T/big.jsonl"
    json_check "a 96 KiB local array in a 1024-thread block: a crash naming the thread and the lane stack's size" \
        "$T/big.jsonl" \
        'len(recs) == 1 and recs[0]["verdict"] == "ERROR" and "crash" in recs[0]["classes"] and "of block (0,0,0) overflowed its " in recs[0]["why"] and "KiB stack, an emulator limit (92-108 KiB a thread" in recs[0]["why"]'

    echo "integration: the checked first launch is reported apart from the fastest (issue 31)"
    "$H" run --backend sim --width 32 --kernel cuda/sgemm_tiled --case exact_65x64x63 --repeats 3 \
        --json "$T/first.jsonl" >"$T/out" 2>&1
    json_check "a case's first launch (checked) is first_launch_ms, beside its fastest launch (kernel_ms)" "$T/first.jsonl" \
        'len(recs) == 1 and recs[0]["first_launch_ms"] > 0 and recs[0]["first_launch_ms"] >= recs[0]["kernel_ms"] > 0'
    if grep -q '; first launches [0-9.]* s, the fastest launch of each case [0-9.]* s)' "$T/out" &&
        grep -q '^Emulator: .* emulated threads per second in first launches (checked; .* in the fastest launch of each case' "$T/out"; then
        ok "the timing line and the emulator's threads-per-second line say which launches they count"
    else
        bad "the timing line and the emulator's threads-per-second line say which launches they count" "$T/out"
    fi

    # The pass that merges a group's checks into one span check (sim_merge_checks.cc), on
    # accesses it must and must not group, then in the shipped tiled SGEMM's row.
    merge_checks() {
        clang=$(ls -d /usr/lib/llvm-*/bin/clang++ | sort -V | tail -n 1) # backend.mk's choice
        if [ ! -f "$(dirname "$clang")/../include/llvm/Passes/PassPlugin.h" ]; then
            skip "checks of one address expression merged" "no LLVM development headers for $clang"
            return
        fi
        "$clang" -O2 -fsanitize=thread -mllvm -tsan-instrument-func-entry-exit=0 -mllvm -tsan-distinguish-volatile=1 \
            -S -emit-llvm "$S/merge_probe.cc" -o "$T/probe.ll" && sed -i '/^attributes #/s/ sanitize_thread//' "$T/probe.ll" &&
            "$(dirname "$clang")/opt" -load-pass-plugin="$BUILD/backends/sim-merge-checks.so" -passes=sim-merge-checks \
                -S "$T/probe.ll" -o "$T/merged.ll" >"$T/out" 2>&1 &&
            python3 tests/merged_ir.py "$T/probe.ll" "$T/merged.ll" probe_tile=2:0:32 probe_residue=0:0:2 \
                probe_late_base=2:0:3 probe_between=1:1:4 probe_volatile=0:0:0 probe_folded=1:0:2 >"$T/out" 2>&1
        if [ $? = 0 ]; then
            ok "a tile's row and column loads are two span checks; misaligned, late or volatile accesses keep theirs; arguments' test their ranges first"
        else
            bad "a tile's row and column loads are two span checks; misaligned, late or volatile accesses keep theirs; arguments' test their ranges first" "$T/out"
        fi
        json_check "... and the HIP sgemm_tiled's row says its inner loop's 32 checks (and more) are a few span checks" \
            "$T/inline.jsonl" \
            'all(int(m.group(1)) >= 32 and int(m.group(2)) <= 4 for m in (re.search(r"(\d+) checks of one address expression merged into (\d+)", r["binary"]) for r in find(kernel="sgemm_tiled"))) and len(find(kernel="sgemm_tiled")) == 2'
    }

    echo "integration: make's checked copies check each access inline where clang builds them (issue 31)"
    if [ -z "$(ls /usr/lib/llvm-*/bin/clang++ 2>/dev/null)" ]; then
        skip "checked copies with their access hooks inlined" "no /usr/lib/llvm-*/bin/clang++"
    else
        so="$BUILD/kernels/sim/hip/sgemm_tiled"
        calls=$(objdump -d --no-show-raw-insn "$so.so" | grep -c 'call.*<__tsan_')
        if [ "$calls" = 0 ] && strings -a "$so.so" | grep -q '^clang ' && strings -a "$so.unchecked.so" | grep -q '^clang '; then
            ok "the HIP sgemm_tiled's copies are clang's, the checked one calling no access hook (objdump)"
        else
            bad "the HIP sgemm_tiled's copies are clang's, the checked one calling no access hook ($calls calls)" /dev/null
        fi
        "$H" run --backend sim --width 32,64 --kernel 'hip/sgemm_tiled,cuda/fault_oob' --case edge_1x2x3 \
            --json "$T/inline.jsonl" >"$T/out" 2>&1
        json_check "... its row names clang's build and passes; an inlined check still names a write's first byte past C" \
            "$T/inline.jsonl" \
            'len(recs) == 4 and all("clang++" in r["binary"] and "its access hooks inlined" in r["binary"] for r in recs) and all(r["verdict"] == "PASS" for r in find(kernel="sgemm_tiled")) and all(r["verdict"] == "XFAIL" and "writes out of bounds, first at argument 2 byte 8 by thread (1,0,0)" in r["why"] for r in find(kernel="fault_oob"))'
        merge_checks "$so"
    fi
    # A clang whose build fails (here one that always does) leaves g++'s two copies in place.
    so="$T/fallback/kernels/sim/hip/sgemm_tiled"
    make --no-print-directory -s BUILD="$T/fallback" SIM_CLANG=/bin/false "$so.so" >"$T/out" 2>&1
    if strings -a "$so.so" | grep -q '^g++ ' && strings -a "$so.unchecked.so" | grep -q '^g++ '; then
        ok "where clang's build fails, make keeps g++'s checked and unchecked copies"
    else
        bad "where clang's build fails, make keeps g++'s checked and unchecked copies" "$T/out"
    fi

    echo "integration: barriers part of a block reaches, shuffles a warp's lanes make unlike (issue 31)"
    for sched in lockstep mixed:0 random:3; do
        "$H" run --backend sim --width 4,8,16,32,64 --only-manifest --manifest "$S/passes.manifest" --schedule "$sched" \
            --json "$T/passes.jsonl" --quiet >"$T/out" 2>&1
        json_check "barriers that exited threads leave to the rest, and shuffles alike or not across a warp, give a GPU's sums ($sched)" \
            "$T/passes.jsonl" \
            'len(find(kernel="exit_barrier_reduce")) == 140 and all(r["verdict"] == "PASS" for r in find(kernel="exit_barrier_reduce")) and all(r["verdict"] == "PASS" for r in recs if r["kernel"] == "segment_shuffle_reduce" and r["width"] >= 16) and len([r for r in recs if r["width"] >= 16]) == 168'
    done

    echo "integration: the portable lane switch (ucontext, as off x86-64) gives the same results (issue 31)"
    U="$T/ucontext" SWITCH_CASES="$T/switch.cases"
    printf 'sgemm tile_64x64x64 M=64 N=64 K=64\nreduce sum_{n} n=65,4097 dist=uniform\n' >"$SWITCH_CASES"
    if make --no-print-directory -s BUILD="$BUILD" sim-ucontext >"$T/out" 2>&1; then
        mkdir -p "$U/backends" && cp "$H" "$U/harness" && ln -sfn "$(realpath "$BUILD")/kernels" "$U/kernels" &&
            ln -sf "$(realpath "$BUILD")/ucontext/backends/hb_sim.so" "$U/backends/hb_sim.so"
        for side in x86 ucontext; do
            h="$H" && [ "$side" = ucontext ] && h="$U/harness"
            HB_ROOT="$PWD" "$h" run --backend sim --width 32,64 --cases "$SWITCH_CASES" --quiet \
                --kernel 'cuda/sgemm_tiled,hip/reduce_generic,hip/reduce_warp32,cuda/reduce_warp32' --json "$U/$side.jsonl" \
                >>"$T/out" 2>&1
            HB_ROOT="$PWD" "$h" run --backend sim --width 32,64 --only-manifest --manifest "$S/passes.manifest" \
                --manifest "$S/schedule.manifest" --quiet --json "$U/$side-passes.jsonl" >>"$T/out" 2>&1
        done
        if python3 - "$U"/x86.jsonl "$U"/x86-passes.jsonl "$U"/ucontext.jsonl "$U"/ucontext-passes.jsonl <<'PY' 2>>"$T/out"
import json, sys
def rows(*paths):
    return sorted((r["kernel"], r["case"], r["width"], r["verdict"], r.get("output_hash"), r["classes"])
                  for p in paths for r in map(json.loads, open(p)) if r.get("record") == "result")
x86, uc = rows(*sys.argv[1:3]), rows(*sys.argv[3:5])
sys.exit(not (len(x86) > 150 and x86 == uc and any(v[3] == "XFAIL" for v in x86) and any(v[3] == "PASS" for v in x86)))
PY
        then ok "barriers, shuffles, exited lanes and volatile yields: the same verdicts and outputs with either switch"
        else bad "barriers, shuffles, exited lanes and volatile yields: the same verdicts and outputs with either switch" "$T/out"; fi
    else
        bad "make sim-ucontext (the runtime with the portable switch)" "$T/out"
    fi

    echo "integration: the runtime under ASan/UBSan, its lane switches annotated (make sim-san)"
    A="$T/asan"
    asan_lib=$(gcc -print-file-name=libasan.so 2>/dev/null)
    if make --no-print-directory -s BUILD="$BUILD" sim-san >"$T/out" 2>&1 && [ -f "$asan_lib" ]; then
        mkdir -p "$A/backends" && cp "$H" "$A/harness" && ln -sfn "$(realpath "$BUILD")/kernels" "$A/kernels" &&
            ln -sf "$(realpath "$BUILD")/san/backends/hb_sim.so" "$A/backends/hb_sim.so"
        LD_PRELOAD="$asan_lib" ASAN_OPTIONS=detect_leaks=0 HB_ROOT="$PWD" "$A/harness" run --backend sim --width 32,64 \
            --cases "$SWITCH_CASES" --kernel 'cuda/sgemm_tiled,hip/reduce_generic,hip/reduce_warp32' --quiet \
            --json "$A/asan.jsonl" >"$T/out" 2>&1
        json_check "barriers and shuffles through the ASan-built runtime: no sanitizer report, the usual verdicts" "$A/asan.jsonl" \
            'len(recs) == 10 and all(r["verdict"] in ("PASS", "XFAIL") for r in recs) and any(r["verdict"] == "XFAIL" for r in recs)'
    else
        bad "make sim-san (the runtime under ASan/UBSan), and gcc's libasan.so" "$T/out"
    fi

    echo "integration: failure lines show what the case ran with"
    "$H" run --backend sim --width 32 --kernel cuda/fault_crash >"$T/out" 2>&1
    if grep -q 'fault_crash:edge_1x2x3 .*\[1x2x3 uniform seed' "$T/out" && ! grep -q 'alpha 0' "$T/out"; then
        ok "a crashed case's line gives no alpha to a kernel that takes none"
    else
        bad "a crashed case's line gives no alpha to a kernel that takes none" "$T/out"
    fi
fi

if [ -z "$(device_count vulkan)" ] || [ "$(device_count vulkan)" = 0 ]; then
    skip "workgroup memory read before it is written" "no Vulkan device"
else
    echo "integration: workgroup memory a GLSL kernel reads unwritten is the poison, in every workgroup"
    V=tests/data/vk
    for run in 1 2 3; do
        HB_VK_VALIDATION=1 XDG_CACHE_HOME="$T/cache" "$H" run --backend vulkan --width 16 --only-manifest \
            --manifest "$V/fidelity.manifest" --cases "$V/fidelity.cases" --json "$T/wg$run.jsonl" --quiet >"$T/out" 2>&1
        json_check "an edge tile reading tile entries nobody staged in its workgroup FAILs wrong (run $run of 3)" "$T/wg$run.jsonl" \
            'len(recs) == 1 and recs[0]["verdict"] == "FAIL" and recs[0]["classes"] == "wrong" and "workgroup memory poisoned before each workgroup: 2 of 2 shared variables" in recs[0]["binary"]'
    done
    if python3 - "$T"/wg[123].jsonl <<'PY' 2>>"$T/out"
import json, sys
hashes = {r["output_hash"] for path in sys.argv[1:] for r in map(json.loads, open(path)) if r.get("record") == "result"}
sys.exit(len(hashes) != 1)
PY
    then ok "... the same output in all three runs"
    else bad "... the same output in all three runs" "$T/out"; fi
fi
