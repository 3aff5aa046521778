#!/bin/sh
# install-deps.sh: the Debian 12 packages the harness, its backends and its tests need.
# CUDA is not a Debian package here: the CUDA backend builds when nvcc is found under
# CUDA_HOME (default /usr/local/cuda) and is skipped otherwise.
set -eu
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
    build-essential pkg-config python3 libxml2-utils clang libclang-rt-14-dev \
    libopenblas-dev check libjson-c-dev jq \
    libvulkan-dev mesa-vulkan-drivers glslc vulkan-validationlayers vulkan-tools \
    hipcc libamdhip64-dev
