#!/bin/sh
# SPDX-License-Identifier: MIT
# sim_clang_checked.sh CLANG REWRITE OUT SOURCE FLAGS...: a shipped kernel's checked copy built
# by clang with ThreadSanitizer's calls inlined (backend.mk). clang instruments like g++ but,
# unlike g++, can inline the hooks afterwards: with the instrumentation in, the functions'
# sanitize_thread attribute is dropped from the IR (LLVM inlines only between functions whose
# sanitizer attributes agree) and the IR optimized again, so each check is a few inline
# compares whose loop-invariant half is hoisted, and no call spills the kernel's registers.
# FLAGS: compiler flags, then the preprocessor's (-I, -include, -D). Exits non-zero, its
# messages on stderr, when any step fails: the caller keeps g++'s build then.
set -eu
clang=$1 rewrite=$2 out=$3 source=$4
shift 4
"$clang" -x c++ "$@" "$source" -E -o "$out.ii"
"$rewrite" < "$out.ii" > "$out.unrolled.ii"
"$clang" "$@" -x c++-cpp-output "$out.unrolled.ii" -S -emit-llvm -o "$out.ll"
sed '/^attributes #/s/ sanitize_thread//' "$out.ll" > "$out.inlined.ll"
"$clang" -O2 -fPIC -ffp-contract=off -c "$out.inlined.ll" -o "$out.o"
rm -f "$out.ii" "$out.unrolled.ii" "$out.ll" "$out.inlined.ll"
