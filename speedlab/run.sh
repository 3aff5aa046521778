#!/bin/sh
# run.sh: the device-side run of speedlab, for the lead's device call (build first with
# speedlab/build.sh, carry build/speedlab). Runs the CUDA benchmark, the Vulkan timer when a
# Vulkan loader is there, disassembles the candidates (cuobjdump) and profiles them with
# ncu.sh (clocks left alone), then prints the summaries so that they end the output.
# Files go to $OUT (or ./speedlab-out). Usage: speedlab/run.sh [speedlab options];
# SPEEDLAB_NCU=0 skips ncu, SPEEDLAB_VK=0 skips Vulkan.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../build/speedlab"
out="${OUT:-$PWD/speedlab-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
    --format=csv >"$out/gpu.txt" 2>&1
"$bin/speedlab" "$@" >"$out/speedlab.txt" 2>&1
echo "speedlab: exit $?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader >>"$out/gpu.txt" 2>&1
if [ "${SPEEDLAB_VK:-1}" = 1 ] && [ -x "$bin/vklab" ]; then
    icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
    timeout 150 "$bin/vklab" "$bin" >"$out/vklab.txt" 2>&1
    echo "vklab: exit $?"
fi
if command -v cuobjdump >/dev/null 2>&1; then
    cuobjdump -sass "$bin/speedlab" >"$out/sass.txt" 2>&1
fi
if [ "${SPEEDLAB_NCU:-1}" = 1 ]; then
    "$here/ncu.sh" "$out"
fi
cat "$out/gpu.txt"
[ -f "$out/vklab.txt" ] && tail -12 "$out/vklab.txt"
grep -E "regs|FAIL|cuBLAS [0-9]|n=" "$out/speedlab.txt" | head -60
if grep -q '^==== summary' "$out/speedlab.txt"; then
    sed -n '/^==== summary/,$p' "$out/speedlab.txt"
else
    tail -30 "$out/speedlab.txt"
fi
