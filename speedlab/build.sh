#!/bin/sh
# build.sh: builds the speedlab benchmark into build/speedlab/ of the repository (no GPU
# needed: nvcc and cuBLAS headers only), keeping ptxas's register/spill report beside it.
# Usage, from anywhere: speedlab/build.sh   (CUDA_HOME defaults to /usr/local/cuda)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../build/speedlab"
nvcc="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
mkdir -p "$out"
"$nvcc" -std=c++17 -O3 -lineinfo -gencode 'arch=compute_90,code=[sm_90,compute_90]' -Xptxas -v \
    "$here/speedlab.cu" -o "$out/speedlab" -lcublas 2>"$out/ptxas.txt" || { cat "$out/ptxas.txt"; exit 1; }
echo "built $out/speedlab (ptxas report: $out/ptxas.txt)"
