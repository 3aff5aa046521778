#!/bin/sh
# run.sh: the device-side run of speedlab, for the lead's device call. Runs the benchmark,
# then, when the tools are there, disassembles the candidates (cuobjdump) and profiles one
# launch of each with ncu (clocks left alone), then prints the benchmark's summary again
# so that it ends the output. Files go to $OUT (or ./speedlab-out).
# Usage: speedlab/run.sh [speedlab options]; SPEEDLAB_NCU=0 skips ncu.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../build/speedlab/speedlab"
out="${OUT:-$PWD/speedlab-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
    --format=csv >"$out/gpu.txt" 2>&1
"$bin" "$@" >"$out/speedlab.txt" 2>&1
echo "speedlab: exit $?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >>"$out/gpu.txt" 2>&1
if command -v cuobjdump >/dev/null 2>&1; then
    cuobjdump -sass "$bin" >"$out/sass.txt" 2>&1
fi
if [ "${SPEEDLAB_NCU:-1}" = 1 ] && command -v ncu >/dev/null 2>&1; then
    timeout 150 ncu --clock-control none --kernel-name regex:'gemm|sl_co|reduce|sl_r' \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats --section SchedulerStats --section InstructionStats \
        "$bin" --profile --sizes 4096 >"$out/ncu.txt" 2>&1
    echo "ncu: exit $? (ncu.txt)"
fi
cat "$out/gpu.txt"
sed -n '/^== /,/^==== summary/{/^==== summary/!p}' "$out/speedlab.txt" | grep -E "regs|FAIL|cuBLAS" | head -60
sed -n '/^==== summary/,$p' "$out/speedlab.txt"
