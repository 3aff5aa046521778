#!/bin/sh
# SPDX-License-Identifier: MIT
# layer_calls.sh DIR LAYER...: the core's layers, lowest first, only call down. For each
# DIR/libhb_<layer>.a, every symbol its objects leave undefined must be defined by that layer or
# one below it, or outside the core (libc, OpenBLAS, json-c, libdl...); one a higher layer
# defines is named with the object that uses it, and the exit status is 1. `make layers` (part
# of `make check`) runs it: the link alone does not stop such a call (GNUmakefile). It reads
# symbol tables only and knows nothing of include paths (tests/integration/layers.sh does).
set -eu
dir=$1
shift
NM=${NM:-nm}
tab=$(printf '\t')
# "layer<TAB>symbol<TAB>type" per global symbol defined by a layer's archive, then
# "layer<TAB>member<TAB>symbol" per undefined one (U; w, a weak one, too).
defs=$(mktemp) uses=$(mktemp)
trap 'rm -f "$defs" "$uses"' EXIT
for layer in "$@"; do
    a=$dir/libhb_$layer.a
    [ -f "$a" ] || { echo "layer_calls: $a: no such archive (make builds it)" >&2; exit 2; }
    "$NM" -g --defined-only "$a" | awk -v l="$layer" 'NF == 3 { print l "\t" $3 "\t" $2 }' >>"$defs"
    "$NM" -A -u "$a" | awk -v l="$layer" '{ split($1, p, ":"); print l "\t" p[2] "\t" $NF }' >>"$uses"
done
# A member is named by its source's folder: harness/<layer>/, or reference/ (compiled into the core).
awk -F "$tab" -v order="$*" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    NR == FNR { if (!($2 in at) || rank[$1] < rank[at[$2]]) { at[$2] = $1; kind[$2] = $3 } next }
    ($3 in at) && rank[at[$3]] > rank[$1] {
        src = $2; sub(/\.o$/, ".c", src)
        path = (system("test -f reference/" src) == 0 && system("test -f harness/" $1 "/" src) != 0) ? "reference/" : "harness/" $1 "/"
        printf "%s%s %s %s, defined in %s/ (a layer above)\n", path, $2, kind[$3] ~ /^[TtWi]$/ ? "calls" : "uses", $3, at[$3]
        bad = 1
    }
    END { exit bad }' "$defs" "$uses"
