#!/bin/sh
# SPDX-License-Identifier: MIT
# install-deps.sh: the Debian 12 packages the harness, its backends and its tests need.
# CUDA is not a Debian package: the CUDA backend builds when nvcc is found under CUDA_HOME
# (default /usr/local/cuda) and is skipped otherwise. With CUDA=13-0 (a toolkit version as
# NVIDIA's apt repository spells it) this also installs that toolkit from NVIDIA's Debian 12
# repository, without a driver: a GPU runner or container brings its own.
# APT_ARCHIVES=DIR keeps the downloaded .deb files in DIR, for a CI cache to restore.
#
# --check [cuda|hip] installs nothing: it says what the build and tests need that this host
# lacks, by command and pkg-config module rather than Debian package, and fails if anything
# is. For a machine that brings its own toolchain (a self-hosted GPU runner: its CUDA or ROCm
# is not Debian's, and apt must not put Debian's HIP beside a real ROCm install). With cuda,
# nvcc must be under CUDA_HOME (default /usr/local/cuda); with hip, hipcc under ROCM_PATH or on
# PATH.
set -eu
if [ "${1:-}" = --check ]; then
    missing=
    for c in cc c++ make pkg-config python3 xmllint clang clang-format jq git glslc cmake; do
        command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
    done
    for m in openblas check json-c vulkan; do
        pkg-config --exists "$m" 2>/dev/null || missing="$missing $m(pkg-config)"
    done
    python3 -c 'import yaml' 2>/dev/null || missing="$missing python3-yaml"
    case ${2:-} in
    cuda) [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || missing="$missing ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ;;
    hip) [ -x "${ROCM_PATH:-/opt/rocm}/bin/hipcc" ] || command -v hipcc >/dev/null 2>&1 || missing="$missing hipcc" ;;
    esac
    if [ -n "$missing" ]; then
        echo "install-deps --check: missing:$missing (ci/README.md: GPU runners)" >&2
        exit 1
    fi
    echo "install-deps --check: everything the build and tests use is here"
    exit 0
fi
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
APT_OPTS=
if [ -n "${APT_ARCHIVES:-}" ]; then
    mkdir -p "$APT_ARCHIVES/partial"
    APT_OPTS="-o Dir::Cache::Archives=$APT_ARCHIVES"
fi
# shellcheck disable=SC2086 # APT_OPTS is two words or none
apt_install() { $SUDO apt-get $APT_OPTS install -y -q --no-install-recommends "$@"; }

$SUDO apt-get update -q
# llvm-15-dev: the headers of the LLVM that hipcc's clang-15 is built on, for the emulator's
# check-merging pass plugin (harness/backends/sim/sim_merge_checks.cc).
apt_install \
    build-essential pkg-config python3 python3-yaml libxml2-utils clang clang-format libclang-rt-14-dev cmake groff-base \
    libopenblas-dev check libjson-c-dev jq git ca-certificates \
    libvulkan-dev mesa-vulkan-drivers glslc vulkan-validationlayers vulkan-tools \
    hipcc libamdhip64-dev llvm-15-dev

if [ -n "${CUDA:-}" ]; then
    apt_install curl
    keyring=$(mktemp)
    curl -fsSL -o "$keyring" \
        https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb
    $SUDO dpkg -i "$keyring"
    rm -f "$keyring"
    $SUDO apt-get update -q
    # The toolkit (nvcc, cudart, cuBLAS, NVRTC) links /usr/local/cuda, the CUDA_HOME default.
    apt_install "cuda-toolkit-$CUDA"
fi
