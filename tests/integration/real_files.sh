# SPDX-License-Identifier: MIT
# tests/integration/real_files.sh: users' files as they are written (issue 26): whole programs
# (main, launches, the runtime API) on the emulator, a feature it does not model as a named SKIP,
# the manifest's includes and defines for every compiler, HIP entries by their C++ names, and an
# installed harness building users' kernels with no source tree. Sources: tests/data/real/.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
R=tests/data/real
RC="$T/real-cache"

if [ -z "$(device_count sim)" ]; then
    skip "whole files on the emulator" "sim backend not built"
else
    echo "integration: whole files (main, launches, the runtime API) on the emulator"
    expect_exit 0 "whole CUDA and HIP programs pass" -- env XDG_CACHE_HOME="$RC" "$H" run --backend sim --width 32 \
        --only-manifest --manifest "$R/whole.manifest" --manifest "$R/helper.manifest" --case edge_15x16x17,sum_4097 \
        --json "$T/whole.jsonl"
    json_check "... each kernel of them: a template-id in a namespace, an explicit instantiation, a HIP launch, a helper" \
        "$T/whole.jsonl" "sorted((r['kernel'], r['verdict']) for r in recs) == \
        [('helper_gemm', 'PASS'), ('whole_gemm', 'PASS'), ('whole_gemm8', 'PASS'), ('whole_reduce', 'PASS')]"
    so=$(python3 -c 'import json,sys; print(next(json.loads(l)["binary"].split()[1] for l in open(sys.argv[1]) if "whole_gemm" in l))' "$T/whole.jsonl")
    if [ -f "$so" ] && ! nm "$so" | grep -qw main && nm -D --defined-only "$so" | grep -q sim_wrapped_entry; then
        ok "the kernel object defines no main() and exports the entry"
    else bad "the kernel object defines no main() and exports the entry" "$T/out"; fi

    echo "integration: what the emulator does not model is a SKIP that names it; a mistake is an ERROR"
    expect_exit 4 "a run of files needing what the emulator lacks: nothing ran, exit 4" -- env XDG_CACHE_HOME="$RC" \
        "$H" run --backend sim --width 32 --only-manifest --manifest "$R/unmodelled.manifest" --case edge_15x16x17 \
        --json "$T/unmod.jsonl"
    json_check "a runtime API the emulator does not declare is a SKIP naming it" "$T/unmod.jsonl" \
        "[r['verdict'] for r in find(kernel='graph_gemm')] == ['SKIP'] and 'cudaGraph' in find(kernel='graph_gemm')[0]['why'] \
        and 'does not declare' in find(kernel='graph_gemm')[0]['why']"
    json_check "a library header it does not provide is a SKIP naming it" "$T/unmod.jsonl" \
        "[r['verdict'] for r in find(kernel='thrust_gemm')] == ['SKIP'] and '<thrust/device_vector.h>' in find(kernel='thrust_gemm')[0]['why']"
    expect_exit 0 "beside a kernel that passes, a SKIP ... exits 0" -- env XDG_CACHE_HOME="$RC" "$H" run --backend sim \
        --width 32 --only-manifest --manifest "$R/whole.manifest" --manifest "$R/unmodelled.manifest" \
        --kernel cuda/whole_gemm,cuda/graph_gemm --case edge_15x16x17
    if grep -q "^1 passed, 0 failed, 1 skipped" "$T/out"; then ok "... and is counted as skipped, never as passed"
    else bad "... and is counted as skipped, never as passed" "$T/out"; fi
    expect_exit 1 "a mistake in host code fails the run" -- env XDG_CACHE_HOME="$RC" "$H" run --backend sim --width 32 \
        --only-manifest --manifest "$R/typo.manifest" --case edge_15x16x17 --json "$T/typo.jsonl"
    json_check "... as an ERROR with the compiler's first error" "$T/typo.jsonl" \
        "[r['verdict'] for r in recs] == ['ERROR'] and 'undeclared_size' in recs[0]['why']"
fi

echo "integration: cooperative groups as CUDA 12/13 has them; kernels of one file compiled once"
if [ -z "$(device_count sim)" ]; then
    skip "cooperative groups and one compile per file on the emulator" "sim backend not built"
else
    expect_exit 0 "block_tile_memory, tiles of 32 to 128 and run-time tiles of 64, cg::reduce: PASS at 32 and 64" -- \
        env XDG_CACHE_HOME="$RC" "$H" run --backend sim --width 32,64 --only-manifest --manifest "$R/cg.manifest" \
        --case sum_33,sum_257,sum_4097 --json "$T/cg.jsonl"
    json_check "... each of the four kernels at both widths" "$T/cg.jsonl" \
        "len(recs) == 24 and all(r['verdict'] == 'PASS' for r in recs) and {r['width'] for r in recs} == {32, 64}"
    env XDG_CACHE_HOME="$RC" "$H" run --backend sim --width 32,64 --only-manifest --manifest "$R/cg_wave64.manifest" \
        --case sum_257 --json "$T/wave64.jsonl" >"$T/out" 2>&1
    json_check "a wave64 tile's own shuffles: PASS at 64; at 32 stopped, the row naming the shuffle" "$T/wave64.jsonl" \
        "[(r['width'], r['verdict']) for r in recs] == [(32, 'ERROR'), (64, 'PASS')] and \
         'thread_block_tile<64>::shfl_down on 32-lane warps: no such collective' in recs[0]['why']"
    XDG_CACHE_HOME="$T/once" "$H" run --backend sim --width 32 --only-manifest --manifest "$R/two_sums.manifest" \
        --case sum_257 --json "$T/once.jsonl" >"$T/out" 2>&1
    json_check "three kernels of one file: the dynamic and the static shared memory ones pass" "$T/once.jsonl" \
        "[r['verdict'] for r in find(kernel='two_dynamic')] == ['PASS'] and [r['verdict'] for r in find(kernel='two_static')] == ['PASS']"
    json_check "... and the write past its own shared array is caught beside its sibling's 17 KiB" "$T/once.jsonl" \
        "[r['verdict'] for r in find(kernel='two_overrun')] == ['ERROR'] and 'illegal 4-byte write' in find(kernel='two_overrun')[0]['why']"
    json_check "... each row says it was linked from the file's one compile, the same object" "$T/once.jsonl" \
        "len({r['binary'].split('one compile of the file for its 3 kernels (')[1].split(')')[0] for r in recs \
        if 'one compile of the file for its 3 kernels (' in r['binary']}) == 1 and len(recs) == 3 \
        and all('one compile of the file for its 3 kernels' in r['binary'] for r in recs)"
    objs=$(find "$T/once" -name '*.o' ! -name '*.unchecked.o' | wc -l)
    if [ "$objs" = 1 ]; then ok "... and the cache holds one compiled object for the three"
    else bad "... and the cache holds one compiled object for the three (found $objs)" "$T/out"; fi
    tls_of() { # the thread-local (shared memory) bytes of the product that ran kernel $1
        so=$(python3 -c 'import json,sys; print(next(json.loads(l)["binary"].split()[1] for l in open(sys.argv[1]) if "\"kernel\":\"'"$1"'\"" in l))' "$T/once.jsonl")
        hex=$(readelf -lW "$so" | awk '$1 == "TLS" { print $6; exit }')
        [ -n "$hex" ] && echo $((16#${hex#0x}))
    }
    over=$(tls_of two_overrun) stat=$(tls_of two_static)
    if [ -n "$over" ] && [ "$over" -lt 2048 ] && [ -n "$stat" ] && [ "$stat" -gt 16384 ]; then
        ok "... each product's shared memory holds its own kernel's arrays only ($over and $stat bytes)"
    else bad "... each product's shared memory holds its own kernel's arrays only ($over, $stat bytes)" "$T/out"; fi
fi

echo "integration: includes and defines reach every compiler that builds the file"
if [ -z "$(device_count sim)" ]; then
    skip "includes and defines on the emulator" "sim backend not built"
else
    expect_exit 0 "kernels that build only with their folder and macros pass on the emulator" -- env XDG_CACHE_HOME="$RC" \
        "$H" run --backend sim --width 32 --only-manifest --manifest "$R/flags.manifest" --case edge_15x16x17 \
        --json "$T/flags.jsonl"
    json_check "... CUDA and HIP, and the row's g++ command shows -I and -D" "$T/flags.jsonl" \
        "len(recs) == 2 and all(r['verdict'] == 'PASS' and '-I$PWD/$R/inc -DREAL_TILE=16 -DREAL_ROW_MAJOR' in r['binary'] \
        for r in recs)"
    mkdir -p "$T/noflags/inc"
    cp "$R"/flags_gemm.* "$T/noflags/" && cp "$R"/inc/* "$T/noflags/inc/"
    grep -v '^includes\|^defines' "$R/flags.manifest" >"$T/noflags/flags.manifest"
    XDG_CACHE_HOME="$RC" "$H" run --backend sim --width 32 --only-manifest --manifest "$T/noflags/flags.manifest" \
        --kernel cuda/flags_gemm --case edge_15x16x17 --json "$T/noflags.jsonl" >"$T/out" 2>&1
    json_check "without them: an ERROR naming the header it cannot find and the key that adds folders" \
        "$T/noflags.jsonl" "[r['verdict'] for r in recs] == ['ERROR'] and '\"real_step.h\"' in recs[0]['why'] \
        and 'includes = DIR' in recs[0]['why']"
fi
if [ -z "$(device_count vulkan)" ] || [ "$(device_count vulkan)" = 0 ]; then
    skip "includes and defines for glslc" "no Vulkan device"
else
    expect_exit 0 "a GLSL kernel that builds only with them passes" -- env XDG_CACHE_HOME="$RC" "$H" run --backend vulkan \
        --width 8 --only-manifest --manifest "$R/flags.manifest" --case edge_15x16x17 --json "$T/vkflags.jsonl"
    json_check "... and the row's glslc command shows -I and -D" "$T/vkflags.jsonl" \
        "[r['verdict'] for r in recs] == ['PASS'] and 'glslc -I$PWD/$R/inc -DREAL_TILE=16 -DREAL_ROW_MAJOR' in recs[0]['binary']"
fi
printf '[k]\nop = sgemm\nlang = cuda\nsource = %s\nentry = k\nblock = 16 16\ngrid = N/16 M/16\nincludes = nowhere\n' \
    "$PWD/$R/flags_gemm.cu" >"$T/badinc.manifest"
expect_exit 2 "includes naming no folder is a manifest error" -- "$H" run --backend sim --manifest "$T/badinc.manifest"
if grep -q "$T/badinc.manifest:8: includes: .*nowhere" "$T/out"; then ok "... naming file:line and the folder"
else bad "... naming file:line and the folder" "$T/out"; fi
sed 's/^includes = nowhere/defines = 1TILE=16/' "$T/badinc.manifest" >"$T/baddef.manifest"
expect_exit 2 "a define that is not NAME[=VALUE] is a manifest error" -- "$H" run --backend sim --manifest "$T/baddef.manifest"
if grep -q "$T/baddef.manifest:8: defines: .1TILE=16.: expected NAME or NAME=VALUE" "$T/out"; then ok "... naming file:line and the word"
else bad "... naming file:line and the word" "$T/out"; fi

echo "integration: HIP entries by their C++ names (namespaces, template-ids, static members)"
for plat in amd:gfx90a nvidia:sm_90; do
    tool=$BUILD/backends/hip-entry-${plat%%:*} arch=${plat#*:}
    if [ ! -x "$tool" ]; then skip "HIP names for $arch" "$tool not built (no ${plat%%:*} HIP toolchain)"; continue; fi
    got=$(XDG_CACHE_HOME="$RC" "$tool" "$arch" "$R/names.hip" 'real::gemm_t<16>' 2>"$T/out")
    if [ "$got" = _ZN4real6gemm_tILi16EEEvPKfS2_Pfiii ]; then ok "$arch: real::gemm_t<16> is instantiated and found"
    else bad "$arch: real::gemm_t<16> is instantiated and found (got '$got')" "$T/out"; fi
    got=$(XDG_CACHE_HOME="$RC" "$tool" "$arch" "$R/names.hip" 'real::gemm_plain' 2>"$T/out")
    if [ "$got" = _ZN4real10gemm_plainEPKfS1_Pfiii ]; then ok "$arch: a namespaced kernel is found"
    else bad "$arch: a namespaced kernel is found (got '$got')" "$T/out"; fi
    got=$(XDG_CACHE_HOME="$RC" "$tool" "$arch" "$R/names.hip" gemm_c 2>"$T/out")
    if [ "$got" = gemm_c ]; then ok "$arch: an extern \"C\" kernel is its own name"; else bad "$arch: extern \"C\" (got '$got')" "$T/out"; fi
    expect_exit 1 "$arch: an entry the file lacks is not found" -- env XDG_CACHE_HOME="$RC" "$tool" "$arch" "$R/names.hip" real::nothing
    if grep -q "it holds: .*real::gemm_plain" "$T/out"; then ok "... and the kernels it holds are listed"
    else bad "... and the kernels it holds are listed" "$T/out"; fi
    got=$(XDG_CACHE_HOME="$RC" "$tool" "$arch" "$R/cg_tile.hip" tile_sum 2>"$T/out")
    if [ "$got" = _Z8tile_sumPKfPfi ]; then ok "$arch: cooperative groups after the runtime header compile (CUDA 13's libcu++ on NVIDIA)"
    else bad "$arch: cooperative groups after the runtime header compile (got '$got')" "$T/out"; fi
done
if [ -x "$BUILD/backends/hip-entry-amd" ]; then
    # One compile per file and flags: entries that need no wrapper share the product.
    for e in real::gemm_plain gemm_c 'real::gemm_t<16>'; do
        XDG_CACHE_HOME="$T/one" "$BUILD/backends/hip-entry-amd" gfx90a "$R/names.hip" "$e" >/dev/null 2>"$T/out"
        n=$(find "$T/one" -name '*.hsaco' | wc -l)
        [ "$e" = gemm_c ] && plain=$n
    done
    if [ "$plain" = 1 ] && [ "$n" = 2 ]; then ok "gfx90a: two entries of one file share one compile; a template-id adds one"
    else bad "gfx90a: two entries of one file share one compile ($plain products), a template-id adds one ($n)" "$T/out"; fi
    got=$(XDG_CACHE_HOME="$RC" "$BUILD/backends/hip-entry-amd" gfx90a "$R/names_member.hip" 'real::Tiles::gemm' 2>"$T/out")
    if [ "$got" = _ZN4real5Tiles4gemmEPKfS2_Pfiii ]; then ok "gfx90a: a static member kernel is found"
    else bad "gfx90a: a static member kernel is found (got '$got')" "$T/out"; fi
fi
n=$(device_count hip)
if [ -z "$n" ] || [ "$n" = 0 ]; then
    skip "HIP names on a HIP device" "no HIP device here (the lead runs names.manifest on the H200)"
else
    expect_exit 0 "names.manifest passes on the HIP device" -- env XDG_CACHE_HOME="$RC" "$H" run --backend hip \
        --only-manifest --manifest "$R/names.manifest" --case 'edge_15*' --json "$T/hipnames.jsonl"
    json_check "... every entry found by its C++ name" "$T/hipnames.jsonl" \
        "len(recs) == 3 and all(r['verdict'] == 'PASS' for r in recs)"
fi
if [ -n "$(device_count sim)" ]; then
    expect_exit 0 "the same entries on the emulator, the static member's too" -- env XDG_CACHE_HOME="$RC" "$H" run \
        --backend sim --width 32 --only-manifest --manifest "$R/names.manifest" --manifest "$R/member.manifest" \
        --case edge_15x16x17 --json "$T/simnames.jsonl"
    json_check "... four PASS" "$T/simnames.jsonl" "len(recs) == 4 and all(r['verdict'] == 'PASS' for r in recs)"
fi

echo "integration: an installed harness builds users' kernels on the emulator with its own headers"
if [ -z "$(device_count sim)" ]; then
    skip "installed emulator headers" "sim backend not built"
elif make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$T/rinst" PREFIX=/opt/hb >"$T/out" 2>&1; then
    mkdir -p "$T/users"
    cp "$R/whole_gemm.cu" "$R/whole_reduce.hip" "$R/whole.manifest" "$T/users/"
    (cd / && XDG_CACHE_HOME="$RC" "$T/rinst/opt/hb/bin/harness" run --backend sim --width 32 --only-manifest \
        --manifest "$T/users/whole.manifest" --kernel cuda/whole_gemm --case edge_15x16x17 --json "$T/rinst.jsonl") \
        >"$T/out" 2>&1
    json_check "a user's whole file passes, built with the installed headers only" "$T/rinst.jsonl" \
        "[r['verdict'] for r in recs] == ['PASS'] and '-I$T/rinst/opt/hb/lib/gpu-harness/sim/include ' in recs[0]['binary'] \
        and '$PWD/harness' not in recs[0]['binary']"
else
    bad "make install for the installed-headers check" "$T/out"
fi

echo "integration: examples/public/fetch.sh brings the listed paths of a code base at its pinned commit"
mkdir -p "$T/pubsrc" "$T/mirror/someone+code" "$T/pub/proj"
(cd "$T/pubsrc" && git init -q && mkdir -p src inc doc && echo 'kernel' >src/k.cu && echo 'helper' >inc/h.h \
    && echo 'large' >doc/big.bin && git add . && git -c user.name=t -c user.email=t@t commit -qm one \
    && echo 'kernel v2' >src/k.cu && git -c user.name=t -c user.email=t@t commit -qam two)
git clone -q --bare "$T/pubsrc" "$T/mirror/someone+code/repo"
first=$(git -C "$T/pubsrc" rev-parse HEAD~1)
cp examples/public/fetch.sh "$T/pub/"
printf 'repo someone/code\ncommit %s\nlicence MIT\nfiles src/k.cu inc\n' "$first" >"$T/pub/proj/source.txt"
if HB_PUBLIC_MIRROR="$T/mirror" bash "$T/pub/fetch.sh" proj >"$T/out" 2>&1 && [ "$(cat "$T/pub/proj/src/src/k.cu")" = kernel ] \
    && [ -f "$T/pub/proj/src/inc/h.h" ] && [ ! -e "$T/pub/proj/src/doc" ] && [ ! -e "$T/pub/proj/src/.git" ]; then
    ok "the listed file and folder at the pinned commit, nothing else, no .git"
else bad "the listed file and folder at the pinned commit, nothing else, no .git" "$T/out"; fi
if HB_PUBLIC_MIRROR="$T/mirror" bash "$T/pub/fetch.sh" proj 2>&1 | grep -q "already there"; then
    ok "... and a second fetch finds it there"
else bad "... and a second fetch finds it there" "$T/out"; fi
for meta in examples/public/*/source.txt; do
    if grep -Eq '^repo [A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' "$meta" && grep -Eq '^commit [0-9a-f]{40}$' "$meta" \
        && grep -Eq '^licence .+' "$meta" && grep -Eq '^files .+' "$meta" && [ -f "$(dirname "$meta")/RESULTS.md" ]; then
        ok "$meta: repository, pinned commit, licence, files, and a RESULTS.md beside it"
    else bad "$meta: repository, pinned commit, licence, files, and a RESULTS.md beside it" "$meta"; fi
done
