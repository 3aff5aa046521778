#!/bin/sh
# ncu.sh: profiles, on the H200, one launch at 4096 of cuBLAS, the issue-15 baseline and the
# shipped sgemm_optimized, the split-free variant, and the coarsened forms, with the clocks
# left alone: first the sections round 1 read (ncu.txt), then the warp stall reasons and the
# shared-memory wavefronts per instruction that decide the coarsened roofline (ncu-stalls.txt,
# a separate pass so that a metric this ncu lacks cannot cost the first).
# Usage: speedlab/ncu.sh [OUT folder] (default $OUT or ./speedlab-out); build first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../build/speedlab"
out="${1:-${OUT:-$PWD/speedlab-out}}"
mkdir -p "$out"
command -v ncu >/dev/null 2>&1 || { echo "ncu: not found"; exit 0; }
pick='regex:xmma_gemm|^sgemm_optimized$|^sl_sgemm_v0$|^sl_opt_s1$|^sgemm_coarsened$|^sl_co_sh$'
timeout 120 ncu --clock-control none --kernel-name "$pick" \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section InstructionStats \
    "$bin/speedlab" --profile --only opt,co --sizes 4096 >"$out/ncu.txt" 2>&1
echo "ncu sections: exit $? (ncu.txt)"
timeout 90 ncu --clock-control none --kernel-name "$pick" \
    --metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$' \
    --metrics smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    --metrics l1tex__throughput.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active \
    "$bin/speedlab" --profile --only opt,co --sizes 4096 >"$out/ncu-stalls.txt" 2>&1
echo "ncu stalls: exit $? (ncu-stalls.txt)"
