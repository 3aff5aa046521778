#!/bin/sh
# build.sh: builds speedlab into build/speedlab/ of the repository, on a machine with no GPU:
# the CUDA benchmark (nvcc, cuBLAS; ptxas's register/spill report kept beside it), the
# SPIR-V of the GLSL candidates (glslc) and the Vulkan timer vklab (cc, Vulkan headers and
# loader), each skipped with a note when its tool is missing.
# Usage, from anywhere: speedlab/build.sh   (CUDA_HOME defaults to /usr/local/cuda)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
out="$root/build/speedlab"
nvcc="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
mkdir -p "$out"
if [ -x "$nvcc" ]; then
    "$nvcc" -std=c++17 -O3 -lineinfo -gencode 'arch=compute_90,code=[sm_90,compute_90]' -Xptxas -v \
        "$here/speedlab.cu" -o "$out/speedlab" -lcublas \
        -Xlinker -rpath -Xlinker /usr/local/cuda/lib64 -Xlinker -rpath -Xlinker /usr/local/cuda/targets/x86_64-linux/lib 2>"$out/ptxas.txt" || { cat "$out/ptxas.txt"; exit 1; }
    echo "built $out/speedlab (ptxas report: $out/ptxas.txt)"
else
    echo "skipped speedlab: no $nvcc"
fi
if command -v glslc >/dev/null 2>&1; then
    glslc --target-env=vulkan1.2 -O -Werror "$here/glsl/sgemm_v0.comp" -o "$out/glsl_v0.spv"
    glslc --target-env=vulkan1.2 -O -Werror "$root/kernels/vulkan/sgemm_optimized.comp" -o "$out/glsl_ship.spv"
    cc -std=c11 -O2 -Wall -Wextra -Werror "$here/vk/vklab.c" -o "$out/vklab" -lvulkan -lm
    echo "built $out/vklab and the SPIR-V it times"
else
    echo "skipped vklab: no glslc"
fi
