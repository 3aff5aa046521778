#!/bin/sh
# glsl3.sh: issue 15's GLSL round (3) on the H200, under 3 minutes, from the repository root
# after `. .dev/env.sh` (the Vulkan loader, VK_DRIVER_FILES), carrying build/harness,
# build/backends, build/kernels and build/speedlab. Runs vklab (every candidate of
# speedlab/glsl/ checked, then timed at 1024-8192 with the driver's register counts), then
# `harness bench` of the shipped glsl/sgemm_optimized beside cuBLAS. No conformance run, no
# CUDA candidates. Writes 5 files to $OUT: gpu.txt, vklab.txt, vk-ir.txt (whatever internal
# representation the driver gives, cut at 8 MB), bench.txt, bench.json.
set -u
out="${OUT:-$PWD/glsl3-out}"
mkdir -p "$out"
t0=$(date +%s)
stamp() { echo "$1: exit $2 at $(($(date +%s) - t0)) s"; }
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
    --format=csv >"$out/gpu.txt" 2>&1
rm -f "$out/vk-ir.txt"
VKLAB_IR="$out/vk-ir.txt" timeout 100 build/speedlab/vklab build/speedlab --runs 7 >"$out/vklab.txt" 2>&1
stamp "vklab" $?
if [ -f "$out/vk-ir.txt" ] && [ "$(wc -c <"$out/vk-ir.txt")" -gt 8000000 ]; then
    head -c 8000000 "$out/vk-ir.txt" >"$out/vk-ir.cut" && mv "$out/vk-ir.cut" "$out/vk-ir.txt"
fi
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader >>"$out/gpu.txt" 2>&1
timeout 60 build/harness bench --backend cuda,vulkan --kernel 'glsl/sgemm_optimized' \
    --json "$out/bench.json" >"$out/bench.txt" 2>&1
stamp "harness bench --backend cuda,vulkan --kernel glsl/sgemm_optimized" $?
cat "$out/gpu.txt"
echo "== vklab"; cat "$out/vklab.txt"
echo "== bench"; grep -iE "cublas|sgemm_optimized" "$out/bench.txt"
