# SPDX-License-Identifier: MIT
# tests/integration/rtc_cache.sh: the GPU backends' run-time compile caches are named by what
# the build read, headers included (issue 27): a header edited, one that appears under
# `__has_include`, or one that appears earlier in the search path builds a new product; an
# unchanged source is a cache hit. Driven with no GPU through cuda-entry and hip-entry-*, which
# compile a source with the backends' own code into the same caches; and for glslc through a
# run on lavapipe. Lavapipe's own shader cache is kept a folder per width.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.

# rk_source DIR EXT: a kernel whose name comes from headers: extra.h if it exists, else
# cfg.h, found through the search path (the source's folder first, then inc/).
rk_source() {
    mkdir -p "$1/inc"
    printf '#define KNAME k_inc\n' >"$1/inc/cfg.h"
    printf '%s\n' '#if __has_include("extra.h")' '#include "extra.h"' '#else' '#include "cfg.h"' '#endif' \
        'extern "C" __global__ void KNAME(float *x) { x[0] = 1.0f; }' >"$1/k.$2"
}

echo "integration: run-time compile caches keyed by the preprocessed source (issue 27)"
for t in cuda-entry:sm_90:cu:cuda:cubin hip-entry-amd:gfx90a:hip:hip:hsaco hip-entry-nvidia:sm_90:hip:hip-nv:cubin; do
    IFS=: read -r name arch ext sub obj <<<"$t"
    tool=$BUILD/backends/$name
    if [ ! -x "$tool" ] && [ "$name" = cuda-entry ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
        bad "$name is built wherever nvcc is"
        continue
    elif [ ! -x "$tool" ]; then skip "$name: the run-time compile cache" "$tool not built (no toolchain)"; continue; fi
    D=$T/rk-$name
    rk_source "$D" "$ext"
    # entry NAME: what the tool finds for entry NAME, the product count and the newest product.
    entry() {
        got=$(XDG_CACHE_HOME="$D/cache" "$tool" "$arch" "$D/k.$ext" "$1" "$D/inc" 2>"$T/out")
        n=$(find "$D/cache/gpu-harness/$sub" -name "*.$obj" | wc -l)
        newest=$(ls -t "$D/cache/gpu-harness/$sub/"*."$obj" 2>/dev/null | head -1)
    }
    entry k_inc
    first=$newest inode=$(stat -c %i "$newest" 2>/dev/null)
    if [ "$got" = k_inc ] && [ "$n" = 1 ]; then ok "$name: built once (its header from the include folder)"
    else bad "$name: built once: got '$got', $n products" "$T/out"; fi
    entry k_inc
    if [ "$got" = k_inc ] && [ "$n" = 1 ] && [ "$newest" = "$first" ] && [ "$(stat -c %i "$first")" = "$inode" ]; then
        ok "$name: unchanged: a cache hit (no rebuild)"
    else bad "$name: unchanged: a cache hit: got '$got', $n products" "$T/out"; fi
    printf '#define KNAME k_near\n' >"$D/cfg.h"
    entry k_near
    if [ "$got" = k_near ] && [ "$n" = 2 ]; then ok "$name: a header appearing earlier in the search path: rebuilt"
    else bad "$name: a header appearing earlier in the search path: rebuilt (got '$got', $n products)" "$T/out"; fi
    printf '#define KNAME k_extra\n' >"$D/extra.h"
    entry k_extra
    if [ "$got" = k_extra ] && [ "$n" = 3 ]; then ok "$name: a header appearing under __has_include: rebuilt"
    else bad "$name: a header appearing under __has_include: rebuilt (got '$got', $n products)" "$T/out"; fi
    printf '#define KNAME k_edited\n' >"$D/extra.h"
    entry k_edited
    if [ "$got" = k_edited ] && [ "$n" = 4 ]; then ok "$name: a header edited: rebuilt"
    else bad "$name: a header edited: rebuilt (got '$got', $n products)" "$T/out"; fi
    printf '#error broken\n' >"$D/extra.h"
    expect_exit 2 "$name: a header that breaks the build is the compiler's error" -- env XDG_CACHE_HOME="$D/cache" \
        "$tool" "$arch" "$D/k.$ext" k_edited "$D/inc"
    if grep -q "broken" "$T/out" && grep -q "(log: " "$T/out"; then ok "... with its first error and the log"
    else bad "... with its first error and the log" "$T/out"; fi
done

if [ -z "$(device_count vulkan)" ] || [ "$(device_count vulkan)" = 0 ]; then
    skip "glslc's run-time compile cache" "no Vulkan device"
else
    D=$T/rk-glsl
    mkdir -p "$D/inc"
    cp tests/data/real/flags_gemm.comp "$D/" && cp tests/data/real/inc/real_step.glsl "$D/inc/"
    sed -n '/^\[flags_gemm_glsl\]/,$p' tests/data/real/flags.manifest >"$D/k.manifest"
    vk_run() { env XDG_CACHE_HOME="$D/cache" "$H" run --backend vulkan --width 8 --only-manifest --manifest "$D/k.manifest" \
        --case edge_15x16x17 --quiet; }
    expect_exit 0 "glslc: a GLSL kernel built with its included header passes" -- vk_run
    sed -i 's/acc + a \* b/acc + a * b + 1.0/' "$D/inc/real_step.glsl"
    expect_exit 1 "glslc: its header edited, it is rebuilt and fails (as a fresh cache does)" -- vk_run
fi

# lavapipe's shader cache: Mesa keys it without the vector width, so each width the harness
# pins gets a folder of its own (vk_device.c), and a user's MESA_SHADER_CACHE_DISABLE holds.
if [ -z "$(device_count vulkan)" ] || [ "$(device_count vulkan)" = 0 ]; then
    skip "lavapipe's shader cache, a folder per width" "no Vulkan device"
else
    echo "integration: lavapipe's shader cache is kept per width, and warm runs give the same bits"
    D=$T/mesa-cache
    # vk_hash XDG WIDTH [ENV...]: the output hash of glsl/reduce_warp32 on sum_4097 at WIDTH.
    vk_hash() {
        local xdg=$1 width=$2
        shift 2
        env XDG_CACHE_HOME="$xdg" "$@" "$H" run --backend vulkan --width "$width" --kernel glsl/reduce_warp32 \
            --case sum_4097 --json "$T/mc.jsonl" --quiet >"$T/out" 2>&1
        python3 -c 'import json, sys; print([json.loads(l)["output_hash"] for l in open(sys.argv[1]) if "\"result\"" in l][0])' \
            "$T/mc.jsonl" 2>/dev/null
    }
    uncached=$(vk_hash "$D/off" 8 MESA_SHADER_CACHE_DISABLE=true)
    at4=$(vk_hash "$D/on" 4)
    at8=$(vk_hash "$D/on" 8)
    warm8=$(vk_hash "$D/on" 8)
    if [ -n "$at4" ] && [ "$at4" != "$at8" ] && [ "$at8" = "$uncached" ] && [ "$warm8" = "$uncached" ]; then
        ok "width 8 after width 4, cold and warm, gives the uncached width-8 bits (the width-4 code is not replayed)"
    else bad "width 8 after width 4 gives the uncached width-8 bits (4: $at4, 8: $at8, warm: $warm8, uncached: $uncached)" "$T/out"; fi
    n4=$(find "$D/on/gpu-harness/lavapipe-128" -type f 2>/dev/null | wc -l)
    n8=$(find "$D/on/gpu-harness/lavapipe-256" -type f 2>/dev/null | wc -l)
    if [ "$n4" -gt 0 ] && [ "$n8" -gt 0 ]; then ok "each width's shaders cached in a folder of its own"; else
        bad "each width's shaders cached in a folder of its own (width 4: $n4 files, width 8: $n8)"; fi
    if [ -z "$(ls "$D/off/gpu-harness" 2>/dev/null)" ]; then ok "MESA_SHADER_CACHE_DISABLE set by the user: nothing cached"; else
        bad "MESA_SHADER_CACHE_DISABLE set by the user: nothing cached"; fi
    mkdir -p "$D/open/gpu-harness/lavapipe-256" && chmod 777 "$D/open/gpu-harness/lavapipe-256"
    open8=$(vk_hash "$D/open" 8)
    if [ "$open8" = "$uncached" ] && [ -z "$(ls "$D/open/gpu-harness/lavapipe-256")" ]; then
        ok "a width's cache folder writable by others is not used"
    else bad "a width's cache folder writable by others is not used (hash $open8)" "$T/out"; fi
fi

# make's builds (issue 48): each step written once. The emulator's shipped kernels are built by
# sim-kernel, which runs the run-time build's own steps (sim_steps.c), so make holds no compiler
# command for them; and the backends' products are rebuilt from the headers the compiler says
# each object read, asked of make with -n -W (what would a change to this file rebuild).
echo "integration: make's builds: one recipe for the emulator's kernels, products rebuilt from the headers read (issue 48)"
if [ ! -f "$BUILD/backends/hb_sim.so" ]; then
    skip "make's builds of the emulator's kernels" "the emulator is not built (no g++)"
else
    mk_what_if() { make --no-print-directory -n BUILD="$BUILD" "$@" 2>&1; }
    mk_what_if -W kernels/cuda/sgemm_tiled.cu "$BUILD/kernels/sim/cuda/sgemm_tiled.so" >"$T/mk"
    if grep -q "/sim-kernel cuda kernels/cuda/sgemm_tiled.cu $BUILD/kernels/sim/cuda/sgemm_tiled.so " "$T/mk" &&
        ! grep -Eq 'g\+\+|clang|sim-rewrite|sim-volatile' "$T/mk"; then
        ok "make builds a shipped kernel for the emulator by sim-kernel alone, no compiler command of its own"
    else bad "make builds a shipped kernel for the emulator by sim-kernel alone, no compiler command of its own" "$T/mk"; fi

    # A source that does not compile: a marker naming its first error, the log beside it, exit 0.
    D=$T/sk
    mkdir -p "$D"
    printf 'extern "C" __global__ void k(float *x) { x[0] = not_declared; }\n' >"$D/bad.cu"
    mkdir -p "$D/out"
    "$BUILD/backends/sim-kernel" cuda "$D/bad.cu" "$D/out/bad.so" "$D/bad.d" >"$T/sk.out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q "^sim-unsupported: .*bad.cu:1:.*error: .*not_declared" "$D/out/bad.so" &&
        grep -q "^sim: $D/bad.cu does not build for the emulator: .*not_declared.* (log: $D/out/bad.so.log)$" "$T/sk.out" &&
        [ ! -e "$D/out/bad.unchecked.so" ] && ! ls -d "$D"/out/tmp.* >/dev/null 2>&1; then
        ok "sim-kernel: a source that does not compile leaves a marker naming its first error and its log, and exits 0"
    else bad "sim-kernel: a source that does not compile leaves a marker naming its first error and its log, and exits 0 (exit $rc)" "$T/sk.out"; fi
    printf 'extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n' >"$D/good.cu"
    "$BUILD/backends/sim-kernel" cuda "$D/good.cu" "$D/out/bad.so" "$D/bad.d" >"$T/sk.out" 2>&1
    if grep -q "^sim: built $D/out/bad.so$" "$T/sk.out" && [ -f "$D/out/bad.unchecked.so" ] &&
        objdump -d "$D/out/bad.so" >/dev/null 2>&1 && grep -q 'sim_prelude.h' "$D/bad.d" && [ ! -e "$D/out/bad.so.sha256" ]; then
        ok "... fixed, both copies in its place, unsealed, and the headers it read recorded for make"
    else bad "... fixed, both copies in its place, unsealed, and the headers it read recorded for make" "$T/sk.out"; fi

    # A header of the HIP runtime's (named as the compiler wrote it down): the HIP kernels'
    # copies, and no CUDA one. A C header of the runtime's: the objects that include it, not the others.
    hip_h=$(grep -ho '[^ ]*/sim_host_hip\.h' "$BUILD/obj/kernels/sim/hip/sgemm_tiled.d" 2>/dev/null | head -n 1)
    mk_what_if -W "${hip_h:-harness/backends/sim/sim_host_hip.h}" all >"$T/mk"
    grep -o "$BUILD/kernels/sim/[a-z0-9-]*/[A-Za-z0-9_]*\.so" "$T/mk" | sort -u >"$T/mk.so"
    n_hip=$(grep -c "/sim/hip/" "$T/mk.so") n_cuda=$(grep -c "/sim/cuda" "$T/mk.so")
    if [ "$n_hip" = "$(find kernels/hip -name '*.hip' | wc -l)" ] && [ "$n_cuda" = 0 ]; then
        ok "make rebuilds the HIP kernels' copies, and no CUDA kernel's, after sim_host_hip.h changes"
    else bad "make rebuilds the HIP kernels' copies, and no CUDA kernel's, after sim_host_hip.h changes ($n_hip hip, $n_cuda cuda)" "$T/mk"; fi
    mk_what_if -W harness/backends/sim/sim_unroll.h "$BUILD/backends/hb_sim.so" >"$T/mk"
    if grep -q -- '-c harness/backends/sim/sim_unroll.c ' "$T/mk" && ! grep -q 'sim_launch.c' "$T/mk"; then
        ok "make recompiles the runtime's objects that include sim_unroll.h, not the others"
    else bad "make recompiles the runtime's objects that include sim_unroll.h, not the others" "$T/mk"; fi
fi
