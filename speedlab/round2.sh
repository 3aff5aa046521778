#!/bin/sh
# round2.sh: issue 15's second device call, about 4 minutes, from the repository root after
# `. .dev/env.sh` (OpenBLAS and the Vulkan loader), carrying build/harness, build/backends,
# build/kernels and build/speedlab. In order of what matters most: the harness's own verdicts
# on the GPU for the shipped sgemm_optimized forms (the CUDA split-K path runs only there),
# speedlab's candidates against cuBLAS with the GLSL timer, `harness bench` with its JSON,
# CSV and SVG, then ncu. Everything lands in $OUT; the summaries end the output.
set -u
out="${OUT:-$PWD/round2-out}"
mkdir -p "$out"
t0=$(date +%s)
stamp() { echo "$1: exit $2 at $(($(date +%s) - t0)) s"; }
timeout 100 build/harness run --backend cuda --kernel 'cuda/sgemm_optimized' --tier standard \
    --json "$out/conf-cuda.jsonl" --quiet >"$out/conf-cuda.txt" 2>&1
stamp "conformance cuda/sgemm_optimized, standard tier" $?
timeout 60 build/harness run --backend vulkan --kernel 'glsl/sgemm_optimized' --tier quick \
    --json "$out/conf-vulkan.jsonl" --quiet >"$out/conf-vulkan.txt" 2>&1
stamp "conformance glsl/sgemm_optimized on the H200's Vulkan, quick tier" $?
SPEEDLAB_NCU=0 timeout 150 speedlab/run.sh --only opt,co >"$out/speedlab-run.txt" 2>&1
stamp "speedlab (CUDA and GLSL candidates)" $?
timeout 200 build/harness bench --backend cuda,vulkan --json "$out/bench.json" --csv "$out/bench.csv" \
    --svg "$out/bench.svg" >"$out/bench.txt" 2>&1
stamp "harness bench --backend cuda,vulkan" $?
speedlab/ncu.sh "$out"
stamp "ncu" $?
echo "== conformance"; tail -4 "$out/conf-cuda.txt"; tail -4 "$out/conf-vulkan.txt"
echo "== bench"; cat "$out/bench.txt"
echo "== speedlab"; tail -40 "$out/speedlab-run.txt"
