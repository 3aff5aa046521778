#!/bin/sh
# SPDX-License-Identifier: MIT
# sim_clang_build.sh CLANG REWRITE OUT SOURCE FLAGS...: a shipped kernel's two copies built by
# clang (backend.mk): OUT.o checked, its ThreadSanitizer hooks inlined, and, when
# SIM_CLANG_UNCHECKED=1, OUT.unchecked.o from the same rewritten source without them. clang
# instruments as g++ does but, unlike g++, can inline the hooks afterwards: with the
# instrumentation in, the functions' sanitize_thread attribute is dropped from the IR (LLVM
# inlines only between functions whose sanitizer attributes agree) and the IR optimized
# again, so a check is a few inline compares whose loop-invariant half is hoisted, not a call
# that spills the kernel's registers. FLAGS: the compiler's, then the preprocessor's (-I,
# -include, -D); SIM_CLANG_TSAN: the instrumentation's; SIM_MERGE_PLUGIN, where set, the pass
# that merges checks of one address expression before they are inlined (sim_merge_checks.cc).
# Exits non-zero, its messages on stderr, when any step fails: the caller keeps g++'s copies
# then.
set -eu
clang=$1 rewrite=$2 out=$3 source=$4
shift 4
# shellcheck disable=SC2086 # SIM_CLANG_TSAN is several words
"$clang" -x c++ "$@" $SIM_CLANG_TSAN "$source" -E -o "$out.ii"
"$rewrite" < "$out.ii" > "$out.unrolled.ii"
# shellcheck disable=SC2086
"$clang" "$@" $SIM_CLANG_TSAN -x c++-cpp-output "$out.unrolled.ii" -S -emit-llvm -o "$out.ll"
sed '/^attributes #/s/ sanitize_thread//' "$out.ll" > "$out.inlined.ll"
"$clang" -O2 -fPIC -ffp-contract=off ${SIM_MERGE_PLUGIN:+"-fpass-plugin=$SIM_MERGE_PLUGIN"} -c "$out.inlined.ll" -o "$out.o"
# The unchecked copy: the same source (its unused hooks too), as g++'s is made.
if [ "${SIM_CLANG_UNCHECKED:-0}" = 1 ]; then
    "$clang" "$@" -x c++-cpp-output "$out.unrolled.ii" -c -o "$out.unchecked.o"
fi
rm -f "$out.ii" "$out.unrolled.ii" "$out.ll" "$out.inlined.ll"
